/**
 * The model table (jobs/models.ts): one row per supported MaxText key. Every row runs through the fit check and every
 * start-up check (SFT on a v6e-32, RL on one v6e-8 where the sampler can sync its weights); the HF-side facts follow
 * maxtext-v0.2.4 (HF_IDS first, the standalone vLLM weight-mapping prefixes).
 */
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { exportNameOf, HF_REPO_FACTS, hasStandaloneVllmMapping, hfRepoProblem, MODEL_KEYS, MODELS, rlSamplerPaths, STANDALONE_VLLM_PREFIXES } from '../../jobs/models';
import { PipelineSpec, resolveSpec } from '../../jobs/spec';
import { testPlatform } from './fixtures';

const spec = (key: string, method: string, slice: string): PipelineSpec => ({
  name: 'm',
  source: 'pipelines.m',
  method,
  model: key,
  hfModel: MODELS[key].hfRepos[0],
  dataset: method === 'sft' ? { hf: 'HuggingFaceH4/ultrachat_200k' } : { hf: 'openai/gsm8k', config: 'main' },
  slice,
  defaultSlice: { machineType: 'ct6e-standard-4t', topology: '4x8' },
});

/** Builds the pipeline; the fit check's and start-up checks' verdict as text ('' when it builds). */
function verdict(key: string, method: string, slice: string): string {
  const r = resolveSpec(spec(key, method, slice), RECIPES);
  if (!r.recipe) return r.problems.join('\n');
  try {
    const p = buildPipeline(r.recipe, testPlatform(), { runId: 'r1', configSource: 'pipelines.m' });
    expect(p.notices.join('\n')).not.toMatch(/no HBM estimate/);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
}

test('the rows the issue asks for, and the tutorials’ four', () => {
  for (const key of ['qwen3-30b-a3b', 'qwen3-30b-a3b-base', 'gemma4-26b', 'gemma4-31b', 'llama3.1-8b-Instruct', 'llama3.1-8b', 'llama3.1-70b', 'qwen3-8b', 'qwen3-14b', 'qwen3-32b', 'qwen3-235b-a22b', 'gemma3-12b', 'gemma3-27b']) {
    expect(MODEL_KEYS).toContain(key);
  }
  for (const r of Object.values(RECIPES)) expect(MODELS[r.model.name]).toBeDefined();
});

test.each(MODEL_KEYS)('%s: consistent shapes, an HF repository of its own name, a source', (key) => {
  const row = MODELS[key];
  expect(row.heads % row.kvHeads).toBe(0);
  expect(row.activeParams ?? row.params).toBeLessThanOrEqual(row.params);
  expect(row.experts === undefined).toBe(row.activeParams === undefined);
  expect(hfRepoProblem(key, row.hfRepos[0])).toBeUndefined();
  for (const repo of row.hfRepos) expect(row.hfNamePattern.test(repo)).toBe(true);
  expect(row.source).toMatch(/maxtext|configs\/models|hf_model_configs/);
});

test.each(MODEL_KEYS)('%s: SFT on a v6e-32 runs the fit check and the start-up checks', (key) => {
  const v = verdict(key, 'sft', 'v6e-32');
  // Either it builds, or the fit check refuses it saying what would fit: never unchecked.
  if (v !== '') expect(v).toMatch(/does not fit .*to fit: /);
});

test.each(MODEL_KEYS)('%s: GRPO on one v6e-8: built and checked, or refused for a reason', (key) => {
  const v = verdict(key, 'grpo', 'v6e-8');
  if (hasStandaloneVllmMapping(key)) {
    if (v !== '') expect(v).toMatch(/does not fit/);
  } else {
    expect(v).toContain('needs a sampler weight-sync path');
  }
});

test('small models fit where the examples put them; big ones are refused by the fit check', () => {
  expect(verdict('llama3.1-8b', 'sft', 'v6e-8')).toBe('');
  expect(verdict('qwen3-8b', 'grpo', 'v6e-8')).toBe('');
  expect(verdict('qwen3-235b-a22b', 'sft', 'v6e-32')).toMatch(/qwen3-235b-a22b does not fit/);
});

test('HF-side facts at maxtext-v0.2.4: the weight-sync prefixes and the export name', () => {
  expect(rlSamplerPaths('gemma4-31b')).toEqual(['maxtext-on-vllm']);
  expect(rlSamplerPaths('qwen3-8b')).toEqual(['vllm', 'maxtext-on-vllm']);
  // Qwen3 MoE: the standalone mapping (weight_mapping/qwen3.py) has no moe_block weights; MaxText inside vLLM only.
  expect(rlSamplerPaths('qwen3-30b-a3b')).toEqual(['maxtext-on-vllm']);
  expect(rlSamplerPaths('qwen3-235b-a22b')).toEqual(['maxtext-on-vllm']);
  expect(rlSamplerPaths('mixtral-8x7b')).toEqual([]);
  expect(exportNameOf('llama3.1-8b-Instruct')).toBe('llama3.1-8b');
  expect(exportNameOf('qwen3-8b')).toBe('qwen3-8b');
  expect(hfRepoProblem('qwen3-30b-a3b', 'google/gemma-4-26b-it')).toMatch(/^does not name a Qwen3 model of qwen3-30b-a3b's size/);
  expect(hfRepoProblem('llama3.1-8b', 'meta-llama/Llama-3.1-8B-Instruct')).toBeUndefined();
  expect(hfRepoProblem('not-a-key', 'x/y')).toBeUndefined();
});

test('architecture facts: every listed repository with recorded facts has its key\'s RoPE theta, vocabulary and layers', () => {
  for (const key of MODEL_KEYS) {
    for (const repo of MODELS[key].hfRepos) {
      const facts = HF_REPO_FACTS[repo];
      if (facts) expect([repo, facts.ropeTheta, facts.vocab, facts.layers]).toEqual([repo, MODELS[key].ropeTheta, MODELS[key].vocab, MODELS[key].layers]);
    }
  }
  // Each recorded repository is either a key's or fits none (then it is listed under no key).
  for (const [repo, facts] of Object.entries(HF_REPO_FACTS)) {
    const fits = MODEL_KEYS.filter((k) => MODELS[k].ropeTheta === facts.ropeTheta && MODELS[k].vocab === facts.vocab && MODELS[k].layers === facts.layers);
    const listed = MODEL_KEYS.filter((k) => MODELS[k].hfRepos.includes(repo));
    expect(listed.every((k) => fits.includes(k))).toBe(true);
  }
  // RoPE theta from the key's yml at maxtext-v0.2.4 (rope_max_timescale).
  expect([MODELS['qwen3-30b-a3b'].ropeTheta, MODELS['qwen3-30b-a3b-base'].ropeTheta, MODELS['qwen3-235b-a22b'].ropeTheta]).toEqual([10_000_000, 1_000_000, 5_000_000]);
});

test('every recorded repository fact names where it was read: MaxText at the pinned tag, or a public copy of the config.json at a commit', () => {
  for (const [repo, facts] of Object.entries(HF_REPO_FACTS)) {
    expect([repo, /maxtext-v0\.2\.4 \(538fe7a3\) src\/maxtext\/checkpoint_conversion\/utils\/hf_model_configs\.py|[0-9a-f]{40} \S+\.(json|py)/.test(facts.source)]).toEqual([repo, true]);
  }
  // The original releases (read from public copies of their config.json, max_position_embeddings 40960): RoPE theta 1M,
  // as the base key's yml; the 2507 releases differ (10M, 5M), so the originals are refused under the 2507 keys.
  expect([HF_REPO_FACTS['Qwen/Qwen3-30B-A3B'].ropeTheta, HF_REPO_FACTS['Qwen/Qwen3-235B-A22B'].ropeTheta]).toEqual([1_000_000, 1_000_000]);
  expect(HF_REPO_FACTS['Qwen/Qwen3-30B-A3B'].source).toContain('alibaba/InferSim f2293dab6d23fe2780356eb71e0ffc3b4baf61dd hf_configs/qwen3-30B-A3B_config.json');
  expect(HF_REPO_FACTS['Qwen/Qwen3-235B-A22B'].source).toContain('ayushi-uwc/elo-benchmark-mathematical-reasoning abd47879937fccdf603f9a53d91efe5b5ec4879f litellm_config.py');
  expect(hfRepoProblem('qwen3-235b-a22b', 'Qwen/Qwen3-235B-A22B')).toMatch(/^has RoPE theta 1000000 where qwen3-235b-a22b has 5000000 .*no key of the model table has these facts/);
});

test('a tokenizer is not refused for the weights\' facts (RoPE theta, layers): only its vocabulary and name count', () => {
  expect(hfRepoProblem('qwen3-30b-a3b-base', 'Qwen/Qwen3-30B-A3B-Instruct-2507')).toMatch(/^has RoPE theta 10000000 where qwen3-30b-a3b-base has 1000000/);
  const asTokenizer = hfRepoProblem('qwen3-30b-a3b-base', 'Qwen/Qwen3-30B-A3B-Instruct-2507', undefined, true);
  expect(asTokenizer).toMatch(/^is qwen3-30b-a3b's repository/);
  expect(asTokenizer).not.toMatch(/RoPE/);
});

test('the weight-sync column is true only for keys whose dispatched mapping covers every weight', () => {
  for (const key of MODEL_KEYS) {
    const row = MODELS[key];
    // A key the dispatcher does not route has no mapping at all; a MoE key's Qwen3 mapping lacks its experts.
    if (!STANDALONE_VLLM_PREFIXES.some((p) => key.startsWith(p))) expect(row.standaloneVllm).toBe(false);
    if (row.experts !== undefined) expect(row.standaloneVllm).toBe(false);
  }
  expect(MODEL_KEYS.filter((k) => MODELS[k].standaloneVllm)).toEqual(['qwen3-8b', 'qwen3-14b', 'qwen3-32b', 'gemma3-12b', 'gemma3-27b', 'llama3.1-8b-Instruct', 'llama3.1-8b', 'llama3.1-70b']);
});
