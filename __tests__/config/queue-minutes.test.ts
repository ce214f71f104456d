/** pipelines.<name>.queueMinutes: default and override reach the step's wait (timeouts.create). */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadConfig } from '../../config/load';
import { pipelineOptions } from '../../config/pipelines';
import { platformFromConfig } from '../../config/platform';
import { buildPipeline, DEFAULT_QUEUE_MINUTES } from '../../jobs/pipeline';
import { podsReadyRequeueMinutes } from '../../jobs/kueue';
import { DEFAULT_TRAIN_MAX_RESTARTS } from '../../jobs/capacity';
import { RECIPES } from '../../jobs/recipes';

function withPipeline(entry: Record<string, unknown>) {
  const file = path.join(__dirname, '..', '..', 'config', 'example.json');
  const copy = JSON.parse(fs.readFileSync(file, 'utf8'));
  copy.pipelines['rl-qwen3'] = { ...copy.pipelines['rl-qwen3'], ...entry };
  const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-queue-')), 'config.json');
  fs.writeFileSync(tmp, JSON.stringify(copy));
  return loadConfig({ env: {}, file: tmp });
}

const trainWait = (loaded: ReturnType<typeof loadConfig>) =>
  buildPipeline(RECIPES['rl-qwen3'], platformFromConfig(loaded), pipelineOptions(loaded, 'rl-qwen3')).steps[1].waitMinutes;

// Kueue's requeuing of never-ready pods (87 minutes) and every attempt (reservation: 2 restarts) come on top.
const attempts = DEFAULT_TRAIN_MAX_RESTARTS.reservation + 1;

test('default: the deploy allows 60 minutes of queueing, the requeuing, and every 720-minute training attempt', () => {
  expect(DEFAULT_QUEUE_MINUTES).toBe(60);
  expect(podsReadyRequeueMinutes()).toBe(87);
  expect(trainWait(loadConfig({ env: {} }))).toBe(60 + 87 + attempts * 730);
});

test('override: queueMinutes, timeoutMinutes and maxRestarts from the config file', () => {
  expect(trainWait(withPipeline({ queueMinutes: 240 }))).toBe(240 + 87 + attempts * 730);
  expect(trainWait(withPipeline({ queueMinutes: 0, timeoutMinutes: { train: 100 }, maxRestarts: 0 }))).toBe(87 + 110);
});

test('a negative queue allowance is a config error naming the key', () => {
  expect(() => withPipeline({ queueMinutes: -1 })).toThrow(/pipelines\.rl-qwen3\.queueMinutes: .*greater than or equal to 0/i);
});
