/**
 * The example configurations under config/examples/ (docs/pipelines.md "Your own pipeline"): each synthesizes its
 * pipeline with the fit check passing. The behavioural models (JobSet and Kueue rules, restarts, MaxText's argv) run
 * over them through __tests__/models/synthesized.ts CONFIGURATIONS, as over the tutorials.
 */
import { loadDeployment } from '../../config/deployment';

const EXAMPLES = {
  'sft-llama3-8b': 'sft-llama3-support',
  'grpo-qwen3-8b': 'grpo-qwen3-math',
  'lora-sft-gemma3-12b': 'lora-gemma3-support',
  'dpo-llama3-8b': 'dpo-llama3-orca',
} as const;

const deployment = (file: string, env: Record<string, string> = {}) => loadDeployment({ env: { CONFIG_FILE: `config/examples/${file}.json`, ...env } });

describe.each(Object.entries(EXAMPLES))('config/examples/%s.json', (file, pipeline) => {
  test('synthesizes its pipeline, and nothing it did not ask for fails', () => {
    const d = deployment(file);
    expect(d.pipelines.map((p) => p.name)).toContain(pipeline);
    const p = d.pipelines.find((x) => x.name === pipeline)!;
    expect(p.steps.map((s) => s.name)).toEqual(['to-maxtext', 'train', 'to-hf', 'eval']);
    expect(p.slice.chips).toBe(8);
    // The fit check ran and passed (a failure throws); no tight-fit or unknown-model warning either.
    expect(d.notices.filter((n) => n.includes(pipeline) && /does not fit|no HBM estimate/.test(n))).toEqual([]);
  });
});
