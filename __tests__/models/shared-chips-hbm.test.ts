/**
 * Trainer and vLLM on the same chips (single-host RL), as the upstream code orders it: MaxText loads the actor and
 * the reference model (maxtext-v0.2.4 `utils/model_creation_utils.py` `create_models_and_meshes`), Tunix's RLCluster
 * then builds the vLLM rollout engine (google/tunix c4ec573d `tunix/rl/rl_cluster.py`), which sizes its KV cache as
 * `hbm_utilization_vllm` x HBM minus what is in use and refuses to start without room for one sequence
 * (tpu-inference `tpu_worker.py` `determine_available_memory`), and only then the actor's Trainer allocates
 * gradients and optimizer state, and the first step its activations. The timeline below is simulated from the
 * synthesized train call; the app must accept exactly what the timeline survives.
 */
import { buildPipeline } from '../../jobs/pipeline';
import { derivePlatform } from '../../jobs/platform';
import { RECIPES } from '../../jobs/recipes';
import { Recipe } from '../../jobs/recipes/types';
import { TPU_RESOURCE, tpuSlice } from '../../jobs/tpu';
import { podRequests } from './kueue';
import { maxTextCalls } from './maxtext-script';
import { allConfigurations, podSets } from './synthesized';

const GIB = 2 ** 30;
// Llama 3.1 8B: 8.03B parameters (model card); configs/models/llama3.1-8b.yml: 32 layers, 8 KV heads, head_dim 128,
// emb 4096, vocab 128256, 32 query heads, untied output projection. v6e: 31.25 GiB per chip usable, XLA:TPU's limit
// ('Used <n>G of 31.25G hbm' in its out-of-memory reports).
const LLAMA = { params: 8.03e9, layers: 32, kvHeads: 8, headDim: 128, hidden: 4096, vocab: 128256, heads: 32 };
const V6E_HBM_GIB = 31.25;

/** What happens on the shared chips, step by step, for the train call's arguments. */
function timeline(args: Record<string, string>, chips: number): 'runs' | 'vLLM refuses to start' | 'trainer out of memory' {
  const util = Number(args.hbm_utilization_vllm ?? '0.72'); // rl.yml default
  const bf16 = 2;
  let inUse = 2 * (LLAMA.params * bf16) / chips / GIB; // actor + reference, fully sharded
  const vocab = 2 * LLAMA.vocab * LLAMA.hidden; // embedding + output projection, whole on every vLLM chip
  inUse += ((LLAMA.params - vocab) * bf16) / chips / GIB + (vocab * bf16) / GIB; // rollout TP fills the chips
  const target = Number(args.max_target_length ?? '1024') + Number(args.kv_cache_buffer ?? '256');
  const oneSequence = (2 * LLAMA.layers * LLAMA.kvHeads * LLAMA.headDim * bf16 * target) / chips / GIB;
  if (util * V6E_HBM_GIB - inUse < oneSequence) return 'vLLM refuses to start';
  let used = util * V6E_HBM_GIB; // vLLM holds its whole share
  used += (LLAMA.params * 3 * bf16) / chips / GIB; // gradients + AdamW mu, nu (bf16)
  const sequences = Number(args.batch_size ?? '1') * Number(args['rl.num_generations'] ?? '2'); // micro = batch
  const length = Number(args.max_target_length ?? '1024');
  const perChip = Math.ceil(sequences / chips);
  // The loss backward: float32 logits, their float32 gradient and the bfloat16 gradient of the matmul (10 bytes).
  used += (perChip * length * LLAMA.vocab * 10) / GIB;
  // rl.yml attention: dot_product: one layer's [batch, heads, length, length] scores and their exponentials (bfloat16).
  used += (2 * perChip * LLAMA.heads * length * length * bf16) / GIB;
  // FSDP over the 8 chips: one layer's weights gathered, and its whole gradient before the reduce-scatter (bfloat16).
  used += (2 * (LLAMA.params / LLAMA.layers) * bf16) / GIB;
  return used > V6E_HBM_GIB ? 'trainer out of memory' : 'runs';
}

test.each(allConfigurations().filter(([, s]) => s.jobSets.some((j) => j.stack === 'rl-llama3')))(
  'the synthesized single-host RL step survives the shared-chips timeline (%s)',
  (_name, synth) => {
    const train = synth.jobSets.find((j) => j.stack === 'rl-llama3' && j.manifest.metadata.name.endsWith('-train'))!;
    const [ps] = podSets(train.manifest);
    const chips = podRequests(ps.pod)[TPU_RESOURCE] * ps.count;
    const [call] = maxTextCalls(ps.pod.containers[0].command[2]);
    expect(call.module).toMatch(/train_rl$/);
    expect(chips).toBe(8);
    expect(timeline(call.args, chips)).toBe('runs');
  },
);

test('the app refuses exactly the hbm_utilization_vllm values the timeline does not survive', () => {
  const base = RECIPES['rl-llama3'];
  const recipe = { ...base, train: { ...base.train, args: { ...base.train.args, hbm_utilization_vllm: 0.72 } } } as Recipe;
  const platform = derivePlatform({
    project: 'my-project', region: 'us-east5', zone: 'us-east5-b', clusterName: 'tpt', bucket: 'my-bucket', namespace: 'default',
    cpuMachineType: 'n4-highmem-64',
    tpuGroups: [{ slice: tpuSlice('ct6e-standard-8t', '2x4'), count: 1, capacity: { type: 'reservation', reservation: 'res' } }],
  });
  const seen = new Set<string>();
  for (const util of [0.1, 0.2, 0.5, 0.7, 0.72, 0.75, 0.8, 0.85, 0.9, 0.95]) {
    const args = { hbm_utilization_vllm: String(util), batch_size: '1', 'rl.num_generations': '2' };
    const outcome = timeline(args, 8);
    seen.add(outcome);
    const build = () => buildPipeline(recipe, platform, { runId: 'r1', overrides: { hbm_utilization_vllm: util } });
    if (outcome === 'runs') expect(build).not.toThrow();
    else expect(build).toThrow(outcome === 'vLLM refuses to start' ? /when vLLM starts, hbm_utilization_vllm/ : /gradients and optimizer state .* hbm_utilization_vllm=0\.\d+ leaves of 31\.25 GiB usable/);
  }
  // The sweep covers all three outcomes.
  expect([...seen].sort()).toEqual(['runs', 'trainer out of memory', 'vLLM refuses to start']);
});
