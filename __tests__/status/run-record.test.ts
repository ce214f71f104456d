/** `npm run status` shows each finished step's lineage (status/run-record.ts): output, source repo@revision, dataset, record. */
import { loadDeployment } from '../../config/deployment';
import type { StepStatus } from '../../status/model';
import { renderText } from '../../status/render';
import { lineageLine, withLineage } from '../../status/run-record';
import { pipelineRecord } from '../../jobs/record';
import { configFile, exampleDeployment, WITH_SINGLE_HOST } from '../util';

const statusOf = (name: string, state: StepStatus['state']): StepStatus => ({ name, jobset: `x-${name}`, state, details: [] });

test('the issue’s line: exported hf-trained/... from meta-llama/Llama-3.1-8B-Instruct@0e9e39f, ultrachat_200k', () => {
  const file = configFile((c) => {
    c.pipelines['sft-llama3-support'] = {
      method: 'sft', model: 'llama3.1-8b', hfModel: 'meta-llama/Llama-3.1-8B-Instruct', hfRevision: '0e9e39f249a16976918f6564b8830bc894c89659',
      dataset: { hf: 'HuggingFaceH4/ultrachat_200k', split: 'train_sft' }, slice: 'v6e-8', steps: 2000,
    };
  });
  const p = loadDeployment({ env: { CONFIG_FILE: file, PIPELINES: 'sft-llama3-support', ...WITH_SINGLE_HOST } }).pipelines[0];
  expect(lineageLine(p, p.steps[2])).toBe(
    `exported hf-trained/${p.paths.hfExportDir.split('/hf-trained/')[1]} from meta-llama/Llama-3.1-8B-Instruct@0e9e39f, ultrachat_200k; run record ${p.runRecords['to-hf'].path}`,
  );
  expect(lineageLine(p, p.steps[0])).toMatch(/^converted max-text-format\/[0-9a-f]{12}\/ from meta-llama\/Llama-3\.1-8B-Instruct@0e9e39f; run record gs:\/\/.*\.run-record\.json$/);
});

test('only completed steps get the line; a tutorial without a revision says the head was converted; RL names its reward', () => {
  const d = exampleDeployment();
  const p = d.pipelines.find((x) => x.name === 'rl-qwen3')!;
  const steps = withLineage(pipelineRecord(p, d.platform), [statusOf('to-maxtext', 'completed'), statusOf('train', 'running'), statusOf('to-hf', 'not-created')]);
  expect(steps.map((s) => s.details.length)).toEqual([1, 0, 0]);
  expect(steps[0].details[0]).toContain('from Qwen/Qwen3-30B-A3B-Instruct-2507 (head when converted)');
  expect(renderText([{ name: p.name, steps }])).toContain(`      converted max-text-format/`);
  const g = loadDeployment({ env: { CONFIG_FILE: 'config/examples/grpo-qwen3-8b.json' } }).pipelines.find((x) => x.name === 'grpo-qwen3-math')!;
  expect(lineageLine(g, g.steps[1])).toMatch(/^trained trained\/rl-[0-9a-f]{12}\/ from Qwen\/Qwen3-8B \(head when converted\) on gsm8k, reward config\/examples\/rewards\/final_number\.py \([0-9a-f]{7}\); run record /);
});
