/** The plan review says who is notified of the pipelines' steps (NOTIFY_EMAIL) and on what. */
import { extractStack } from '../../review/model';
import { loadPrices } from '../../jobs/prices';
import { evaluationLine, MAXTEXT_DEFAULT_TEST_BATCHES, renderReport } from '../../review/report';
import { describerFor } from '../../review/resources';
import { synthStack, WITH_SINGLE_HOST } from '../util';

function report(env: Record<string, string>) {
  const infra = extractStack('infra', synthStack('infra', { ...WITH_SINGLE_HOST, ...env }));
  return { infra, text: renderReport({ models: [infra], findings: [], prices: loadPrices(), source: 'test' }) };
}

test('NOTIFY_EMAIL: the channels and the seven policies are read, and the report names who is notified', () => {
  const { infra, text } = report({ NOTIFY_EMAIL: 'ml-team@example.com,oncall@example.org' });
  expect(infra.notificationChannels.map((c) => [c.type, c.target])).toEqual([
    ['email', 'ml-team@example.com'],
    ['email', 'oncall@example.org'],
  ]);
  expect(infra.alertPolicies.map((p) => p.condition).sort()).toEqual(['PromQL', 'PromQL', 'log match', 'log match', 'log match', 'log match', 'log match']);
  expect(infra.alertPolicies.every((p) => p.channels === 2)).toBe(true);
  expect(text).toContain('## Notifications\n\nNotified: email `ml-team@example.com`, email `oncall@example.org`; on ');
  expect(text).toContain('step failed (log match)');
  expect(text).toContain('training stalled (PromQL)');
  expect(text).toContain('step pods never started (PromQL)');
});

test('unset: the report says nobody is notified; a review of pipeline stacks alone says nothing of it', () => {
  expect(report({}).text).toContain('Nobody is notified of failed, restarted, stalled or completed steps (set NOTIFY_EMAIL).');
  const pipelineOnly = extractStack('rl-qwen3', synthStack('rl-qwen3', WITH_SINGLE_HOST));
  expect(renderReport({ models: [pipelineOnly], findings: [], prices: loadPrices(), source: 'test' })).not.toContain('## Notifications');
});

test('a change line per new resource type', () => {
  const { infra } = report({ NOTIFY_EMAIL: 'ml-team@example.com' });
  const channel = infra.notificationChannels[0]!;
  const lines = describerFor('google_monitoring_notification_channel')!.describe!({
    type: 'google_monitoring_notification_channel',
    name: 'x',
    before: undefined,
    after: {},
    verb: 'added',
    a: { ...infra, notificationChannels: [channel] },
  });
  expect(lines).toEqual(['notification channel email ml-team@example.com added']);
  expect(describerFor('google_logging_metric')!.describe!({ type: 'google_logging_metric', name: 'step-lines', before: undefined, after: { name: 'm/x' }, verb: 'added' })).toEqual([
    'log-based metric m/x added',
  ]);
});

describe("MaxText's RL evaluation in the review: on or off per recipe, with its rough share of the step's chip-hours", () => {
  const line = (name: string) => evaluationLine(extractStack(name, synthStack(name, WITH_SINGLE_HOST)).pipeline!);
  test('rl-llama3 (tutorial 002: num_test_batches=10 of 50 batches)', () => {
    expect(line('rl-llama3')).toMatch(/^MaxText evaluation: 10 test batches before and 10 after training \(num_test_batches=10\), on the training slice: roughly 29% of the step's batches \(2 x 10 of 70\), up to ~[\d.]+ of its [\d.]+ chip-hour bound/);
  });
  test('rl-qwen3: off (num_test_batches=0)', () => {
    expect(line('rl-qwen3')).toBe("MaxText evaluation: off (num_test_batches=0); `npm run status` shows no accuracy before/after.\n");
  });
  test("rl-gemma4: unset, MaxText's default 5", () => {
    expect(line('rl-gemma4')).toContain(`5 test batches before and 5 after training (num_test_batches unset: MaxText's default ${MAXTEXT_DEFAULT_TEST_BATCHES})`);
    expect(line('rl-gemma4')).toContain('The recipe does not set it');
  });
  test('sft-gemma4: no RL evaluation', () => {
    expect(line('sft-gemma4')).toBeUndefined();
  });
});
