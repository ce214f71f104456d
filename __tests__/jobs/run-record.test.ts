/**
 * Lineage (jobs/run-record.ts): each step's run record is the synthesized facts of the run, written next to the step's
 * output before the MaxText call and completed after it succeeded; the record never changes the step's exit code. The
 * scripts run for real in bash with a stand-in `python3` that logs its calls.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { buildScript, MODULES, runThen, shellQuote } from '../../jobs/maxtext';
import { buildPipeline } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { recordLine, runRecord, runRecordPath, RunRecord } from '../../jobs/run-record';
import { loadDeployment } from '../../config/deployment';
import { testPlatform } from './fixtures';

const sample = (): RunRecord => buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1' }).runRecords['to-maxtext'].record;

/** Runs `lines` with a python3 stand-in: `-c` calls (the record writer) log their phase; `-m` calls exit `rc`. */
function run(lines: string[], rc: number): { rc: number; log: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'record-'));
  const log = path.join(dir, 'log');
  fs.writeFileSync(log, '');
  fs.writeFileSync(
    path.join(dir, 'python3'),
    `#!/usr/bin/env bash\nif [ "$1" = "-c" ]; then echo "record $5 $6" >> ${log}; exit 0; fi\necho "maxtext $2" >> ${log}\nexit ${rc}\n`,
    { mode: 0o755 },
  );
  const r = spawnSync('bash', ['-c', ['set -eu', ...lines].join('\n')], { env: { ...process.env, PATH: `${dir}:${process.env.PATH}` }, encoding: 'utf8', timeout: 20000 });
  return { rc: r.status ?? -1, log: fs.readFileSync(log, 'utf8').trim().split('\n') };
}

describe('the record around the call', () => {
  const rec = sample();
  const at = 'gs://b/m/max-text-format/k.run-record.json';
  const start = recordLine(rec, at, 'start', shellQuote);
  const end = recordLine(rec, at, 'end', shellQuote);

  test('start before the call, end after a success; the exit code is the call’s', () => {
    expect(run([start, ...runThen(`python3 -m ${MODULES.trainSft}`, [end])], 0)).toEqual({ rc: 0, log: ['record start ', `maxtext ${MODULES.trainSft}`, 'record end'] });
  });

  test('no end record after a failure, and the failure code reaches Kubernetes unchanged (also a signal code)', () => {
    expect(run([start, ...runThen(`python3 -m ${MODULES.trainSft}`, [end])], 1)).toEqual({ rc: 1, log: ['record start ', `maxtext ${MODULES.trainSft}`] });
    expect(run(runThen(`python3 -m ${MODULES.trainSft}`, [end]), 137).rc).toBe(137);
  });

  test('a record that cannot be written does not fail the step', () => {
    const failing = recordLine(rec, at, 'start', shellQuote).replace('python3 -c', 'false');
    expect(run([failing, ...runThen(`python3 -m ${MODULES.trainSft}`, [])], 0).rc).toBe(0);
  });

  test('no step resolves a revision in the writer: the commits come from the step\'s own lines (HF_REVISION, TOKENIZER_REVISION)', () => {
    expect(start).not.toContain('model_info');
    expect(start).toContain('HF_REVISION');
    expect(start).toContain('TOKENIZER_REVISION');
  });

  test('buildScript: the record starts after the skip check and the token, the conversion retry completes it', () => {
    const script = buildScript({ module: MODULES.toMaxText, args: [] }, { skipIfExists: 'gs://b/x/0/commit_success.txt', retryTransientOnce: true, record: { start, end } });
    const order = ['commit_success.txt', 'HF_TOKEN=', ' start ||', MODULES.toMaxText, ' end ||'].map((s) => script.indexOf(s));
    expect(order.every((v, i) => v >= 0 && (i === 0 || v > order[i - 1]))).toBe(true);
    expect(script).not.toContain('${');
  });
});

describe('what the record holds', () => {
  test('a tutorial: model, repository, conversion key, run name, image, chips; the paths next to each step’s output', () => {
    const p = buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1' });
    const r = p.runRecords.train.record;
    expect(r).toMatchObject({
      version: 1, pipeline: 'rl-qwen3', runId: 'r1', step: 'train', model: 'qwen3-30b-a3b', hfRepo: 'Qwen/Qwen3-30B-A3B-Instruct-2507',
      image: p.image, chips: 32, slices: 1, checkpoint: p.paths.trainedCheckpoint,
    });
    expect(r.runName).toMatch(/^rl-[0-9a-f]{12}$/);
    expect(p.paths.maxtextDir).toContain(`/${r.conversionKey}/`);
    expect(p.runRecords['to-maxtext'].path).toBe(`${p.paths.maxtextDir.replace(/\/$/, '')}.run-record.json`);
    expect(p.runRecords.train.path).toBe(`${p.paths.trainRunDir.replace(/\/$/, '')}.run-record.json`);
    expect(p.runRecords['to-hf'].path).toBe(runRecordPath(p.paths, 'to-hf'));
    expect(r.hfRevision).toBeUndefined();
    // Each record holds only what its step depends on: a later step's change never replaces an earlier step.
    expect(r.export).toBeUndefined();
    expect(p.runRecords['to-hf'].record.export).toBe(p.paths.hfExportDir);
    expect(p.runRecords['to-maxtext'].record).not.toHaveProperty('runName');
    expect(p.runRecords['to-maxtext'].record).not.toHaveProperty('checkpoint');
  });

  test('a config pipeline: revision, dataset and reward file hash', () => {
    const d = loadDeployment({ env: { CONFIG_FILE: 'config/examples/grpo-qwen3-8b.json' } });
    const p = d.pipelines.find((x) => x.name === 'grpo-qwen3-math')!;
    const r = runRecord(p.recipe, p.paths, 'train', { runId: 'r1', conversionKey: 'k', chips: 8, slices: 1 });
    expect(r.dataset).toEqual({ hf: 'openai/gsm8k', config: 'main' });
    expect(r.reward).toEqual({ path: 'config/examples/rewards/final_number.py', sha256: p.recipe.files![0].sha256 });
    expect(JSON.stringify(p.steps[1].manifest)).toContain(p.runRecords.train.path);
  });
});
