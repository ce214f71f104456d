/**
 * The eval step's run record (issue 32, lineage): like the MaxText steps, the eval step writes a record beside its
 * scores (through its export mount: `<export>/eval.run-record.json`) holding the commits it actually read: the base
 * model served at HF_REVISION, the tokenizer at TOKENIZER_REVISION, and the dataset of its own task at the commit
 * resolved once and written into the task file (EVAL_DATASET_REVISION). The synthesized script runs for real in bash
 * with stand-ins for pip, vllm, curl, lm_eval and the Hub calls; the record writer is the real python3.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadDeployment } from '../../config/deployment';
import { DATASET_REVISION_PLACEHOLDER, EXPORT_MOUNT, heldoutTaskYaml } from '../../jobs/eval';
import type { Pipeline } from '../../jobs/pipeline';
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { HF_TOKEN_FILE } from '../../jobs/secrets';
import { testPlatform } from './fixtures';

const A = 'a'.repeat(40);
const D = 'd'.repeat(40);
const qwen = (): Pipeline => buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1' });
const evalScriptOf = (p: Pipeline): string => {
  const m = p.steps.find((s) => s.name === 'eval')!.manifest as any;
  return m.spec.replicatedJobs[0].template.spec.template.spec.containers[0].command[2];
};

describe('what the eval record holds and where it is', () => {
  test('rl-qwen3: the base repository, the tokenizer, GSM8K as its own task reads it, the export, the tasks and the scores file', () => {
    const p = qwen();
    const evalStep = p.runRecords.eval;
    expect(evalStep.path).toBe(`${p.paths.hfExportDir}eval.run-record.json`);
    expect(evalStep.record).toEqual({
      version: 1, pipeline: 'rl-qwen3', runId: 'r1', step: 'eval', model: 'qwen3-30b-a3b', hfRepo: 'Qwen/Qwen3-30B-A3B-Instruct-2507',
      dataset: { hf: 'openai/gsm8k', config: 'main', split: 'test' }, tokenizer: 'Qwen/Qwen3-30B-A3B-Instruct-2507',
      conversionKey: p.runRecords.train.record.conversionKey, image: expect.stringMatching(/^vllm\/vllm-tpu:/),
      convertedCheckpoint: p.paths.maxtextCheckpoint, runName: p.runRecords.train.record.runName, export: p.paths.hfExportDir,
      tasks: ['gsm8k_reasoning'], evalJson: `${p.paths.hfExportDir}eval.json`,
    });
  });

  test('an SFT example: the held-out task reads the run\'s own evaluation split; the export it scores', () => {
    const d = loadDeployment({ env: { CONFIG_FILE: 'config/examples/sft-llama3-8b.json' } });
    const p = d.pipelines.find((x) => x.name === 'sft-llama3-support')!;
    expect(p.runRecords.eval.record).toMatchObject({ step: 'eval', dataset: { hf: 'HuggingFaceH4/ultrachat_200k', split: 'test_sft' }, tasks: ['heldout'], export: p.paths.hfExportDir });
    expect(heldoutTaskYaml({ path: 'acme/qa', split: 'validation', column: 'messages' })).toContain(`dataset_kwargs:\n  revision: "${DATASET_REVISION_PLACEHOLDER}"`);
  });

  test('no eval step, no eval record; the record ConfigMap of the pipeline names the eval record for status', () => {
    const off = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1', eval: { enabled: false } });
    expect(off.runRecords.eval).toBeUndefined();
    expect(Object.keys(qwen().runRecords)).toEqual(['to-maxtext', 'train', 'to-hf', 'eval']);
  });
});

/** The eval script with its fixed paths moved into `dir`, run in bash with stand-ins; `summaryRc` is the summary's exit. */
function runEval(p: Pipeline, summaryRc: number): { rc: number; record?: Record<string, unknown>; task: string; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eval-record-'));
  const bin = path.join(dir, 'bin');
  const mount = path.join(dir, 'export');
  fs.mkdirSync(bin);
  fs.mkdirSync(mount);
  fs.writeFileSync(path.join(dir, 'token'), 'hf_x');
  const realPython = spawnSync('bash', ['-c', 'command -v python3'], { encoding: 'utf8' }).stdout.trim();
  const stand = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), `#!/usr/bin/env bash\n${body}\n`, { mode: 0o755 });
  // python3: the Hub and bucket calls answer fixed commits; the summary (stdin) exits summaryRc; the record writer is real.
  stand(
    'python3',
    [
      'if [ "$1" = "-" ]; then cat > /dev/null; exit ' + summaryRc + '; fi',
      'case "$2" in',
      `  *dataset_info*) echo ${D}; exit 0 ;;`,
      `  *model_info*) echo ${A}; exit 0 ;;`,
      `  *gcsfs*) echo ${A}; exit 0 ;;`,
      '  *snapshot_download*) exit 0 ;;',
      'esac',
      `exec ${realPython} "$@"`,
    ].join('\n'),
  );
  stand('pip', 'exit 0');
  stand('curl', 'exit 0');
  stand('lm_eval', 'exit 0');
  stand('vllm', 'exec sleep 30');
  const script = evalScriptOf(p)
    .split(HF_TOKEN_FILE).join(path.join(dir, 'token'))
    .split('/tmp/eval-tasks').join(path.join(dir, 'tasks'))
    .split('/tmp/tokenizer-at-revision').join(path.join(dir, 'tok'))
    .split(EXPORT_MOUNT).join(mount);
  const r = spawnSync('bash', ['-c', script], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8', timeout: 60000 });
  const file = path.join(mount, 'eval.run-record.json');
  const task = fs.readdirSync(path.join(dir, 'tasks')).filter((f) => f.endsWith('.yaml')).map((f) => fs.readFileSync(path.join(dir, 'tasks', f), 'utf8')).join('\n');
  const out = { rc: r.status ?? -1, ...(fs.existsSync(file) ? { record: JSON.parse(fs.readFileSync(file, 'utf8')) } : {}), task, out: `${r.stdout}${r.stderr}` };
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}

describe('the eval script writes it (bash, stand-ins)', () => {
  test('scored: the start holds the commits read (weights, tokenizer, dataset), the end its time; the task file reads the dataset at that commit', () => {
    const r = runEval(qwen(), 0);
    if (r.rc !== 0) throw new Error(r.out);
    expect(r.record).toMatchObject({
      step: 'eval', hfRepo: 'Qwen/Qwen3-30B-A3B-Instruct-2507', hfRevisionDownloaded: A, tokenizerRevisionDownloaded: A, datasetRevisionDownloaded: D,
      dataset: { hf: 'openai/gsm8k', config: 'main', split: 'test' }, tasks: ['gsm8k_reasoning'],
    });
    expect(r.record!['startedAt']).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(r.record!['endedAt']).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(r.task).toContain(`dataset_kwargs:\n  revision: "${D}"`);
    expect(r.task).not.toContain(DATASET_REVISION_PLACEHOLDER);
  });

  test('a failed gate (exit 3) or untrustworthy scores (exit 1): the step\'s exit code is the summary\'s, the record has no end', () => {
    for (const rc of [3, 1]) {
      const r = runEval(qwen(), rc);
      expect(r.rc).toBe(rc);
      expect(r.record!['startedAt']).toBeDefined();
      expect(r.record).not.toHaveProperty('endedAt');
    }
  });

  test('a record that cannot be written does not fail the step', () => {
    const p = qwen();
    const broken = { ...p, steps: p.steps.map((s) => (s.name !== 'eval' ? s : { ...s, manifest: JSON.parse(JSON.stringify(s.manifest).split(`${EXPORT_MOUNT}/eval.run-record.json`).join('/nonexistent-dir/eval.run-record.json')) })) } as Pipeline;
    const r = runEval(broken, 0);
    expect(r.rc).toBe(0);
    expect(r.out).toContain(`run record ${p.runRecords.eval.path} not written (the step goes on)`);
  });
});
