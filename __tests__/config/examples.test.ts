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
  'grpo-own-data': 'grpo-qwen3-metamath',
} as const;

const deployment = (file: string, env: Record<string, string> = {}) => loadDeployment({ env: { CONFIG_FILE: `config/examples/${file}.json`, ...env } });

describe.each(Object.entries(EXAMPLES))('config/examples/%s.json', (file, pipeline) => {
  test('synthesizes its pipeline, and nothing it did not ask for fails', () => {
    const d = deployment(file);
    expect(d.pipelines.map((p) => p.name)).toContain(pipeline);
    const p = d.pipelines.find((x) => x.name === pipeline)!;
    // Gemma 3 exports are unservable on the pinned vLLM image (jobs/models.ts SERVING): no eval step, one notice saying why.
    const served = !file.includes('gemma3');
    expect(p.steps.map((s) => s.name)).toEqual(['to-maxtext', 'train', 'to-hf', ...(served ? ['eval'] : [])]);
    expect(d.notices.filter((n) => n.startsWith(`${pipeline}: eval step left out:`)).length).toBe(served ? 0 : 1);
    expect(p.slice.chips).toBe(8);
    // The fit check ran and passed (a failure throws); no tight-fit or unknown-model warning either.
    expect(d.notices.filter((n) => n.includes(pipeline) && /does not fit|no HBM estimate/.test(n))).toEqual([]);
  });
});

test('grpo-own-data: the template and the processor file ship beside the reward file, byte for byte, and MaxText is pointed at them', () => {
  const p = deployment('grpo-own-data').pipelines.find((x) => x.name === 'grpo-qwen3-metamath')!;
  // Shipped as binaryData, base64 of the file's bytes (jobs/recipe-files.ts): no Terraform template syntax to escape.
  const binary = (p.filesConfigMap as { binaryData: Record<string, string> }).binaryData;
  const data = Object.fromEntries(Object.entries(binary).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  expect(Object.keys(data).sort()).toEqual(['final_number.py', 'metamath_processor.py', 'metamath_template.json']);
  for (const [name, file] of [['metamath_template.json', 'config/examples/data/metamath_template.json'], ['metamath_processor.py', 'config/examples/data/metamath_processor.py']]) {
    expect(data[name]).toBe(require('fs').readFileSync(file, 'utf8'));
  }
  const train = JSON.stringify(p.steps.find((s) => s.name === 'train')!.manifest);
  expect(train).toContain('data_template_path=/etc/tpu-post-training/files/metamath_template.json');
  expect(train).toContain('dataset_processor_path=/etc/tpu-post-training/files/metamath_processor.py');
  expect(train).toContain('dataset_name=meta-math/MetaMathQA');
});

test('docs/pipelines.md shows, for each example, the training values that run and its steps (jobs/spec.ts trainingValues)', () => {
  const docs = require('fs').readFileSync('docs/pipelines.md', 'utf8') as string;
  const { trainingValues } = require('../../jobs/spec') as typeof import('../../jobs/spec');
  const { lastCheckpointStep } = require('../../jobs/maxtext') as typeof import('../../jobs/maxtext');
  const { formatNumber } = require('../../jobs/maxtext') as typeof import('../../jobs/maxtext');
  for (const [file, name] of Object.entries(EXAMPLES)) {
    const p = deployment(file).pipelines.find((x) => x.name === name)!;
    const values = Object.entries(trainingValues(p.recipe)).map(([k, v]) => `${k} ${typeof v === 'number' ? formatNumber(v) : String(v)}`).join(', ');
    expect(docs).toContain(`| \`${name}\` | ${values} | ${lastCheckpointStep(p.recipe.train)} |`);
  }
});

test('docs/pipelines.md lists every typed setting of every method with its key, default and source', () => {
  const docs = require('fs').readFileSync('docs/pipelines.md', 'utf8') as string;
  const { METHOD_ROWS } = require('../../jobs/methods') as typeof import('../../jobs/methods');
  for (const row of METHOD_ROWS) {
    for (const [name, s] of Object.entries(row.settings)) {
      const line = docs.split('\n').find((l) => l.includes(`| \`${name}\` | \`${s.key}\``) && l.includes(`\`${Object.keys(row.methods)[0]}\``));
      expect([name, line !== undefined]).toEqual([name, true]);
      const { formatNumber } = require('../../jobs/maxtext') as typeof import('../../jobs/maxtext');
      const shown = typeof s.default === 'number' ? formatNumber(s.default) : typeof s.default === 'string' ? `\`${s.default}\`` : String(s.default);
      expect([name, line!.includes(`| ${shown} `)]).toEqual([name, true]);
      const at = /l\.\d+(-\d+)?/.exec(s.source)![0];
      expect([name, line!.includes(at)]).toEqual([name, true]);
    }
  }
});
