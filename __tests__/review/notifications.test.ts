/** The plan review says who is notified of the pipelines' steps (NOTIFY_EMAIL) and on what. */
import { extractStack } from '../../review/model';
import { loadPrices } from '../../review/prices';
import { renderReport } from '../../review/report';
import { describerFor } from '../../review/resources';
import { synthStack, WITH_SINGLE_HOST } from '../util';

function report(env: Record<string, string>) {
  const infra = extractStack('infra', synthStack('infra', { ...WITH_SINGLE_HOST, ...env }));
  return { infra, text: renderReport({ models: [infra], findings: [], prices: loadPrices(), source: 'test' }) };
}

test('NOTIFY_EMAIL: the channels and the five policies are read, and the report names who is notified', () => {
  const { infra, text } = report({ NOTIFY_EMAIL: 'ml-team@example.com,oncall@example.org' });
  expect(infra.notificationChannels.map((c) => [c.type, c.target])).toEqual([
    ['email', 'ml-team@example.com'],
    ['email', 'oncall@example.org'],
  ]);
  expect(infra.alertPolicies.map((p) => p.condition).sort()).toEqual(['absence', 'log match', 'log match', 'log match', 'log match']);
  expect(infra.alertPolicies.every((p) => p.channels === 2)).toBe(true);
  expect(text).toContain('## Notifications\n\nNotified: email `ml-team@example.com`, email `oncall@example.org`; on ');
  expect(text).toContain('step failed (log match)');
  expect(text).toContain('training stalled (absence)');
});

test('unset: the report says nobody is notified', () => {
  expect(report({}).text).toContain('Nobody is notified of failed, restarted, stalled or completed steps (set NOTIFY_EMAIL).');
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
