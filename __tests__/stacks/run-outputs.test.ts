/**
 * Nothing lost, nothing leaked, read from the synthesized pipeline stacks (what Terraform applies):
 * - every gs:// path a step writes, modelled on MaxText maxtext-v0.2.4 (AI-Hypercomputer/maxtext):
 *   to_maxtext and to_huggingface write into `base_output_directory` itself
 *   (src/maxtext/checkpoint_conversion/{to_maxtext,to_huggingface}.py main: `output_directory = config.base_output_directory`);
 *   train_rl / train_sft write below `<base_output_directory>/<run_name>/` (src/maxtext/configs/types.py:
 *   `checkpoint_dir = os.path.join(base_output_directory, run_name, "checkpoints", "")`, tensorboard/metrics likewise);
 *   Pathways writes `--gcs_scratch_location` (shared scratch that expires, not an output);
 * - the HF token reaches MaxText through the environment only (pyconfig.py `_resolve_or_infer_addl_config` reads
 *   HF_TOKEN), never on a command line.
 */
import { maxTextCalls } from '../models/maxtext-script';
import { buildPipeline, checkRunOutputs } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { testPlatform } from '../jobs/fixtures';
import { HF_TOKEN_FILE } from '../../jobs/secrets';
import { stackJobSets, synthStack, WITH_SINGLE_HOST } from '../util';

const PIPELINES = Object.keys(RECIPES);
const RUN_IDS = ['r1', 'r2'];

interface Container {
  name: string;
  command?: string[];
  args?: string[];
}
interface Step {
  pipeline: string;
  runId: string;
  step: string;
  containers: Container[];
}

/** The JobSets of a synthesized pipeline stack, with every container (init/sidecar too) of every replicated job. */
function stepsOf(pipeline: string, runId: string, env: Record<string, string> = {}): Step[] {
  const tf = synthStack(pipeline, { ...WITH_SINGLE_HOST, RUN_ID: runId, ...env });
  // The MaxText steps; the eval step runs vLLM and writes only eval.json inside its run's export (__tests__/jobs/eval.test.ts).
  return stackJobSets(tf)
    .filter((r) => r.manifest.metadata.labels['tpu-post-training/step'] !== 'eval')
    .map((r) => ({
      pipeline,
      runId,
      step: r.manifest.metadata.labels['tpu-post-training/step'],
      containers: r.manifest.spec.replicatedJobs.flatMap((rj: any) => {
        const spec = rj.template.spec.template.spec;
        return [...(spec.initContainers ?? []), ...spec.containers];
      }),
    }));
}

const scriptOf = (c: Container): string | undefined => (c.command?.[0] === '/bin/bash' || c.command?.[0] === 'bash' ? c.command[2] : undefined);

/** The MaxText call of a script: module and `key=value` arguments (the shared script reader). */
const maxtextCall = (script: string) => maxTextCalls(script)[0];

/** Every gs:// prefix a step writes (outputs), and the scratch locations it writes (shared by design). */
function writesOf(step: Step): { outputs: string[]; scratch: string[] } {
  const outputs: string[] = [];
  const scratch: string[] = [];
  for (const c of step.containers) {
    for (const a of [...(c.args ?? []), ...(c.command ?? [])]) {
      const m = /--gcs_scratch_location=(gs:\/\/\S+)/.exec(a);
      if (m) scratch.push(m[1]);
    }
    const script = scriptOf(c);
    const call = script && maxtextCall(script);
    if (!call) continue;
    const base = call.args['base_output_directory'];
    expect(base).toMatch(/^gs:\/\/.+\/$/);
    if (/\.trainers\.post_train\./.test(call.module)) {
      const run = call.args['run_name'];
      expect(run).toMatch(/^[A-Za-z0-9._-]+$/); // empty run_name would write to the pod's local disk
      outputs.push(`${base}${run}/`);
    } else {
      outputs.push(base);
    }
  }
  return { outputs, scratch };
}

const overlaps = (a: string, b: string) => a.startsWith(b) || b.startsWith(a);

const ALL: Step[] = PIPELINES.flatMap((p) => RUN_IDS.flatMap((r) => stepsOf(p, r)));

describe('every run writes its own results', () => {
  test('the model sees every step of 4 pipelines x 2 run ids, each writing exactly one output', () => {
    expect(ALL).toHaveLength(PIPELINES.length * RUN_IDS.length * 3);
    for (const s of ALL) expect(writesOf(s).outputs).toHaveLength(1);
  });

  test('no train or to-hf step of one run writes into anything another run (or another step) writes', () => {
    const writes = ALL.map((s) => ({ s, out: writesOf(s).outputs[0] }));
    for (const a of writes) {
      if (a.s.step === 'to-maxtext') continue;
      for (const b of writes) {
        if (a === b) continue;
        if (overlaps(a.out, b.out)) {
          throw new Error(`${a.s.pipeline}/${a.s.runId}/${a.s.step} writes ${a.out}, overlapping ${b.s.pipeline}/${b.s.runId}/${b.s.step} (${b.out})`);
        }
      }
    }
  });

  test('to-maxtext output is shared only by runs of the same pipeline (identical conversion), never by another output', () => {
    const conv = ALL.filter((s) => s.step === 'to-maxtext').map((s) => ({ s, out: writesOf(s).outputs[0] }));
    for (const a of conv) {
      for (const b of conv) {
        if (a !== b && overlaps(a.out, b.out)) {
          expect(a.out).toBe(b.out);
          expect(a.s.pipeline).toBe(b.s.pipeline);
        }
      }
    }
    for (const s of ALL.filter((x) => x.step !== 'to-maxtext')) {
      for (const c of conv) expect(overlaps(writesOf(s).outputs[0], c.out)).toBe(false);
    }
  });

  test('r1 exports to hf-trained/<tutorial run_name>-<trainKey>/<exportKey>/, r2 to hf-trained/<run_name>-r2-<trainKey>/<exportKey>/', () => {
    const hf = (p: string, r: string) => writesOf(ALL.find((s) => s.pipeline === p && s.runId === r && s.step === 'to-hf')!).outputs[0];
    expect(hf('rl-qwen3', 'r1')).toMatch(/^gs:\/\/[^/]+\/qwen3-30b-a3b\/hf-trained\/rl-[0-9a-f]{12}\/[0-9a-f]{12}\/$/);
    expect(hf('rl-qwen3', 'r2')).toMatch(/\/qwen3-30b-a3b\/hf-trained\/rl-r2-[0-9a-f]{12}\/[0-9a-f]{12}\/$/);
    expect(hf('sft-gemma4', 'r2')).toMatch(/\/gemma4-31b\/hf-trained\/sft-r2-[0-9a-f]{12}\/[0-9a-f]{12}\/$/);
  });

  test('to-hf reads the checkpoint of its own run', () => {
    for (const s of ALL.filter((x) => x.step === 'to-hf')) {
      const call = maxtextCall(scriptOf(s.containers.find((c) => scriptOf(c)?.includes('python3 -m maxtext'))!)!)!;
      const train = writesOf(ALL.find((x) => x.pipeline === s.pipeline && x.runId === s.runId && x.step === 'train')!).outputs[0];
      expect(call.args['load_parameters_path'].startsWith(`${train}checkpoints/`)).toBe(true);
    }
  });

  test('Pathways scratch is the only location written by more than one pipeline, and it is no output', () => {
    const outputs = ALL.flatMap((s) => writesOf(s).outputs);
    const scratch = [...new Set(ALL.flatMap((s) => writesOf(s).scratch))];
    expect(scratch.length).toBeGreaterThan(0);
    for (const sc of scratch) for (const o of outputs) expect(overlaps(sc, o)).toBe(false);
  });

  test('a conversion that differs (another image) gets its own directory, and training loads it', () => {
    const variant = stepsOf('rl-qwen3', 'r3', { CLOUD_IMAGE_NAME: 'example.com/maxtext:custom' });
    const conv = writesOf(variant.find((s) => s.step === 'to-maxtext')!).outputs[0];
    const shared = writesOf(ALL.find((s) => s.pipeline === 'rl-qwen3' && s.step === 'to-maxtext')!).outputs[0];
    expect(shared).toMatch(/\/qwen3-30b-a3b\/max-text-format\/[0-9a-f]{12}\/$/);
    expect(conv).toMatch(/\/qwen3-30b-a3b\/max-text-format\/[0-9a-f]{12}\/$/);
    expect(conv).not.toBe(shared);
    const train = variant.find((s) => s.step === 'train')!;
    const call = train.containers.map((c) => scriptOf(c)).filter((x): x is string => !!x && x.includes('python3 -m maxtext')).map(maxtextCall)[0]!;
    expect(call.args['load_parameters_path']).toBe(`${conv}0/items/`);
  });
});

describe('the HF token stays off every command line', () => {
  test('no container argv of any step holds the token, its variable or hf_access_token', () => {
    let checked = 0;
    for (const s of ALL) {
      for (const c of s.containers) {
        const script = scriptOf(c);
        const argv = [...(c.args ?? []), ...(script === undefined ? (c.command ?? []) : [])];
        for (const a of argv) expect(a).not.toMatch(/HF_TOKEN|hf_access_token/);
        if (script === undefined) continue;
        // The MaxText call: `exec` (conversions' retry) or a child the script waits for (to write the run record after it).
        const at = script.search(/^(?:exec )?python3 -m maxtext/m);
        if (at < 0) continue;
        checked++;
        // The MaxText command line and everything after it.
        expect(script.slice(at)).not.toMatch(/HF_TOKEN|hf_access_token|hf-token/);
        // No other line passes it as an argument either (only the assignment from the file and the export).
        const tokenLines = script.split('\n').filter((l) => /HF_TOKEN|hf_access_token/.test(l));
        expect(tokenLines).toEqual([`HF_TOKEN="$(cat ${HF_TOKEN_FILE})"`, 'export HF_TOKEN']);
      }
    }
    expect(checked).toBe(ALL.length);
  });

  test('every step downloads from Hugging Face with HF_TOKEN exported before MaxText starts', () => {
    // to_maxtext (the checkpoint), train_rl/train_sft (the tokenizer), to_huggingface (tokenizer and config).
    for (const s of ALL) {
      const script = s.containers.map(scriptOf).find((x) => x?.includes('python3 -m maxtext'))!;
      const exported = script.indexOf('export HF_TOKEN');
      expect(exported).toBeGreaterThan(script.indexOf(`HF_TOKEN="$(cat ${HF_TOKEN_FILE})"`));
      expect(exported).toBeLessThan(script.search(/^(?:exec )?python3 -m maxtext/m));
    }
  });
});

describe('pipelines that would share a result are refused at synth', () => {
  const platform = testPlatform();
  const qwen = buildPipeline(RECIPES['rl-qwen3'], platform, { runId: 'r1' });

  test('the four recipes own distinct run and export directories', () => {
    expect(() => checkRunOutputs(PIPELINES.map((n) => buildPipeline(RECIPES[n], platform, { runId: 'r1' })))).not.toThrow();
  });

  test('a second pipeline on the same model and run_name names both and the fix', () => {
    const twin = buildPipeline({ ...RECIPES['rl-qwen3'], name: 'rl-qwen3-b' }, platform, { runId: 'r1' });
    expect(() => checkRunOutputs([qwen, twin])).toThrow(
      `pipelines rl-qwen3 and rl-qwen3-b would both write ${qwen.paths.trainRunDir}; give one another run_name (pipelines.rl-qwen3-b.overrides.run_name)`,
    );
    const renamed = buildPipeline({ ...RECIPES['rl-qwen3'], name: 'rl-qwen3-b' }, platform, { runId: 'r1', overrides: { run_name: 'rl-b' } });
    expect(() => checkRunOutputs([qwen, renamed])).not.toThrow();
  });
});

describe('the converted checkpoint is shared only by identical conversions', () => {
  const platform = testPlatform();
  const dir = (options: Parameters<typeof buildPipeline>[2]) => buildPipeline(RECIPES['rl-qwen3'], platform, options).paths.maxtextDir;

  test('another run id, the same conversion: the same directory (kept, not converted again)', () => {
    expect(dir({ runId: 'r2' })).toBe(dir({ runId: 'r1' }));
    expect(dir({ runId: 'r1' })).toMatch(/^gs:\/\/my-bucket\/qwen3-30b-a3b\/max-text-format\/[0-9a-f]{12}\/$/);
  });

  test('an overridden to_maxtext flag, or only a training key: own directory vs the same one', () => {
    const flag = dir({ runId: 'r2', overrides: { lazy_load_tensors: false } });
    expect(flag).toMatch(/^gs:\/\/my-bucket\/qwen3-30b-a3b\/max-text-format\/[0-9a-f]{12}\/$/);
    expect(flag).not.toBe(dir({ runId: 'r1' }));
    expect(flag).not.toBe(dir({ runId: 'r2', image: 'example.com/maxtext:custom' }));
    // A training-only key does not change the conversion.
    expect(dir({ runId: 'r2', overrides: { num_batches: 10 } })).toBe(dir({ runId: 'r1' }));
  });
});
