/**
 * What MaxText does at start-up with the arguments each synthesized step passes, on the node the step lands on.
 * Model of maxtext-v0.2.4 src/maxtext/utils/max_utils.py `maybe_initialize_jax_distributed_system`:
 * skip_jax_distributed_system -> skipped; enable_single_controller (Pathways) -> skipped; hardware=cpu ->
 * `initialize_jax_for_cpu` (needs a coordinator address: a lone pod has none); otherwise the TPU path calls
 * `jax.distributed.initialize()`, which needs TPU devices. So a pod without TPUs must skip, and run JAX on CPU
 * unless its devices are remote (Pathways: JAX_PLATFORMS=proxy). Defaults a step does not pass come from its config
 * file: src/maxtext/configs/post_train/rl.yml sets `skip_jax_distributed_system: true` for train_rl; base.yml false.
 */
import { podRequests } from './kueue';
import { maxTextCalls } from './maxtext-script';
import { allConfigurations, Obj, podSets } from './synthesized';
import { TPU_RESOURCE } from '../../jobs/tpu';

const truthy = (v: string | undefined) => v !== undefined && /^(true|1)$/i.test(v);

/** Config-file defaults of the keys the model reads, per module (maxtext-v0.2.4 configs). */
const MODULE_DEFAULTS: Record<string, Record<string, string>> = {
  'maxtext.trainers.post_train.rl.train_rl': { skip_jax_distributed_system: 'true' },
};

/** The branch MaxText takes; `undefined` means it gets past the distributed init on this node. */
function distributedInit(args: Record<string, string>, hasTpu: boolean): string | undefined {
  if (truthy(args.skip_jax_distributed_system)) return undefined;
  if (truthy(args.enable_single_controller)) return undefined;
  if (args.hardware === 'cpu') return 'initialize_jax_for_cpu waits for a coordinator';
  return hasTpu ? undefined : 'jax.distributed.initialize() on the TPU path, with no TPU';
}

describe.each(allConfigurations())('MaxText gets past start-up on the node each step lands on (%s)', (_name, synth) => {
  // The MaxText steps (the eval step runs vLLM: __tests__/jobs/eval.test.ts).
  const cases = synth.jobSets.filter((js) => js.manifest.metadata.labels['tpu-post-training/step'] !== 'eval').flatMap((js) =>
    podSets(js.manifest).flatMap((ps) =>
      [...(ps.pod.containers ?? [])].filter((c: Obj) => c.command?.[0] === '/bin/bash').map((c: Obj) => [`${js.manifest.metadata.name}/${ps.name}/${c.name}`, ps, c] as const),
    ),
  );
  test.each(cases)('%s', (_label, ps, c) => {
    const hasTpu = (podRequests(ps.pod)[TPU_RESOURCE] ?? 0) > 0;
    const calls = maxTextCalls(c.command[2]);
    expect(calls.length).toBeGreaterThan(0);
    const remoteDevices = (c.env ?? []).some((e: Obj) => e.name === 'JAX_PLATFORMS' && /proxy/.test(e.value));
    for (const call of calls) {
      const args = { ...(MODULE_DEFAULTS[call.module] ?? {}), ...call.args };
      expect(distributedInit(args, hasTpu)).toBeUndefined();
      if (!hasTpu && !remoteDevices) expect(args.hardware).toBe('cpu');
    }
  });
});

test('the model fails the earlier rl-llama3 export on CPU (no hardware/skip flags)', () => {
  expect(distributedInit({ model_name: 'llama3.1-8b', scan_layers: 'True' }, false)).toMatch(/no TPU/);
  expect(distributedInit({ hardware: 'cpu' }, false)).toMatch(/coordinator/);
});

test('every export bundles the tokenizer of the repo the model was trained from', () => {
  const synth = allConfigurations()[0][1];
  const exports = synth.jobSets.filter((j) => j.manifest.metadata.name.endsWith('-to-hf'));
  expect(exports.length).toBeGreaterThan(0);
  const repos: Record<string, string> = {};
  for (const j of exports) {
    const script = podSets(j.manifest)[0].pod.containers[0].command[2];
    const [call] = maxTextCalls(script);
    // The export reads the tokenizer files downloaded at the run's commit (jobs/hf-revision.ts): name them by repository.
    expect(call.flags.hf_model_path).toBe('/tmp/tokenizer-at-revision');
    repos[j.stack] = /tokenizer and chat template: (\S+) at \$TOKENIZER_REVISION in \/tmp\/tokenizer-at-revision/.exec(script)![1];
  }
  expect(repos).toMatchObject({ 'rl-qwen3': 'Qwen/Qwen3-30B-A3B-Instruct-2507' });
  if (repos['rl-llama3']) expect(repos['rl-llama3']).toBe('meta-llama/Llama-3.1-8B-Instruct');
});
