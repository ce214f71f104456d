/** NOTIFY_EMAIL: off by default; channels per address and one policy per event class plus the stall policy when set. */
import { Testing, TerraformStack } from 'cdktf';
import { NOTIFICATION_RESOURCE_TYPES, Notifications } from '../../constructs/notifications';
import { APIS_OF_OPTIONAL_RESOURCE } from '../../constructs/project-apis';
import { DEFAULT_STALL_ALERT_MINUTES, EVENT_CLASSES, NEVER_STARTED_MINUTES, notificationPlan, trainStartMinutes } from '../../jobs/notifications';
import { modelSize } from '../../jobs/models';
import { MAIN_CONTAINER } from '../../jobs/jobset';
import { ConfigError } from '../../config/load';
import { exampleConfig, resources, synthStack, WITH_SINGLE_HOST } from '../util';

const EMAILS = 'ml-team@example.com, oncall@example.org';

test('default: no NOTIFY_EMAIL, no channel, policy or step-line metric (only the loss metric of the dashboard, jobs/dashboard.ts; the monitoring and logging APIs are managed for every configuration)', () => {
  const infra = synthStack('infra');
  const services = Object.values(resources(infra, 'google_project_service')).map((x: any) => x.service);
  expect(services).toContain('monitoring.googleapis.com');
  expect(services).toContain('logging.googleapis.com');
  expect(resources(infra, 'google_monitoring_notification_channel')).toEqual({});
  expect(resources(infra, 'google_monitoring_alert_policy')).toEqual({});
  expect(Object.values(resources(infra, 'google_logging_metric')).map((m: any) => m.name)).toEqual([expect.stringMatching(/\/training-loss$/)]);
  expect(exampleConfig().config.notify).toEqual({ emails: [], stallMinutes: DEFAULT_STALL_ALERT_MINUTES });
});

describe('NOTIFY_EMAIL set', () => {
  const infra = synthStack('infra', { ...WITH_SINGLE_HOST, NOTIFY_EMAIL: EMAILS });
  const channels = Object.values(resources(infra, 'google_monitoring_notification_channel'));
  const policies = Object.values(resources(infra, 'google_monitoring_alert_policy'));

  test('the Monitoring and Logging APIs are enabled, and every new resource waits for its API', () => {
    const apis = APIS_OF_OPTIONAL_RESOURCE;
    const service = (api: string) => Object.entries(resources(infra, 'google_project_service')).find(([, x]: [string, any]) => x.service === api)![0];
    for (const type of NOTIFICATION_RESOURCE_TYPES) {
      const all = Object.values(resources(infra, type)) as any[];
      expect(all.length).toBeGreaterThan(0);
      for (const r of all) for (const api of apis[type]!) expect(r.depends_on).toContain(`google_project_service.${service(api)}`);
    }
  });

  test('one email channel per address', () => {
    expect(channels.map((c) => c.labels.email_address)).toEqual(['ml-team@example.com', 'oncall@example.org']);
    expect(channels.every((c) => c.type === 'email')).toBe(true);
  });

  test('one log-match policy per event class, rate-limited (required for log-match), every channel notified', () => {
    const logMatch = policies.filter((p) => p.conditions[0].condition_matched_log);
    expect(logMatch.map((p) => p.display_name.split(': ')[1]).sort()).toEqual(EVENT_CLASSES.map((c) => `step ${c.id}`).sort());
    for (const p of logMatch) {
      expect(p.alert_strategy.notification_rate_limit.period).toBe('300s');
      expect(p.notification_channels).toHaveLength(2);
      const workflow = p.display_name.endsWith('step workflow-failed');
      // A step's JobSet or Workload names pipeline and step; the pipeline's Workflow names pipeline, Workflow and its message.
      expect(Object.keys(p.conditions[0].condition_matched_log.label_extractors).sort()).toEqual(workflow ? ['message', 'pipeline', 'reason', 'workflow'] : ['jobset', 'pipeline', 'reason', 'step']);
      // Cloud Monitoring's variables, escaped from Terraform's own interpolation ($${ is a literal ${).
      expect(p.documentation.subject).toContain(workflow ? '$${log.extracted_label.pipeline} Workflow' : '$${log.extracted_label.pipeline} $${log.extracted_label.step}');
      expect(p.documentation.content.replace(/\$\$\{/g, '')).not.toContain('${');
    }
  });

  test('stall: a log-based counter of step lines and a PromQL condition of the default 30 minutes, valid before the metric exists', () => {
    const metric = Object.values(resources(infra, 'google_logging_metric')).find((m: any) => /training-step-lines$/.test(m.name)) as any;
    expect(metric.metric_descriptor).toMatchObject({ metric_kind: 'DELTA', value_type: 'INT64' });
    expect(metric.filter).toContain(`resource.labels.container_name="${MAIN_CONTAINER}"`);
    const stall = policies.find((p) => /training stalled$/.test(p.display_name))!;
    const promql = stall.conditions[0].condition_prometheus_query_language;
    expect(promql).toMatchObject({ duration: '0s', evaluation_interval: '60s', disable_metric_validation: true });
    expect(promql.query).toContain(`> ${DEFAULT_STALL_ALERT_MINUTES * 60})`);
    expect(promql.query).toContain(`[${DEFAULT_STALL_ALERT_MINUTES}m]`);
    // The query names the metric the same apply creates, by its PromQL name.
    expect(promql.query).toContain(`logging_googleapis_com:user_${metric.name.replace(/[^A-Za-z0-9_]/g, '_')}{`);
    expect(stall.depends_on).toEqual(expect.arrayContaining([expect.stringMatching(/^google_logging_metric\./)]));
    expect(policies.filter((p) => p.conditions[0].condition_absent)).toEqual([]);
    expect(stall.documentation.content.replace(/\$\$\{/g, '')).not.toContain('${');
  });

  test('never started: a log-based counter of Kueue Workload events and a PromQL condition 30 minutes after admission', () => {
    const metric = Object.values(resources(infra, 'google_logging_metric')).find((m: any) => /workload-events$/.test(m.name)) as any;
    expect(metric.metric_descriptor).toMatchObject({ metric_kind: 'DELTA', value_type: 'INT64' });
    expect(metric.label_extractors).toEqual({ jobset: expect.stringContaining('REGEXP_EXTRACT'), reason: 'EXTRACT(jsonPayload.reason)' });
    const policy = policies.find((p) => /step pods never started$/.test(p.display_name))!;
    const promql = policy.conditions[0].condition_prometheus_query_language;
    expect(promql).toMatchObject({ duration: '0s', evaluation_interval: '60s', disable_metric_validation: true });
    expect(promql.query).toContain(`offset ${NEVER_STARTED_MINUTES}m`);
    expect(promql.query).toContain(`logging_googleapis_com:user_${metric.name.replace(/[^A-Za-z0-9_]/g, '_')}{`);
    expect(policy.severity).toBe('ERROR');
    expect(policy.depends_on).toEqual(expect.arrayContaining([expect.stringMatching(/^google_logging_metric\..*workload-events/)]));
    expect(policy.documentation.content.replace(/\$\$\{/g, '')).not.toContain('${');
  });
});

test('override: the stall threshold (notify.stallMinutes) and the rate limit', () => {
  const stack = new TerraformStack(Testing.app(), 's');
  new Notifications(stack, 'n', {
    emails: ['a@example.com'],
    plan: notificationPlan(
      { clusterName: 'c', namespace: 'ns', pipelines: [{ name: 'sft-gemma4', kind: 'sft', trainMainReplicatedJob: 'slice' }] },
      MAIN_CONTAINER,
      45,
    ),
    rateLimitSeconds: 60,
  });
  const json = JSON.parse(Testing.synth(stack));
  const policies = Object.values(json.resource.google_monitoring_alert_policy) as any[];
  const query = policies.find((p) => /training stalled$/.test(p.display_name)).conditions[0].condition_prometheus_query_language.query;
  expect(query).toContain('> 2700)');
  expect(query).toContain('[45m]');
  // A pipeline without a start-up budget (firstStepDueMinutes) is the window alone: no due clause.
  expect(query).not.toContain(' or\n');
  expect(query).not.toMatch(/\nor\n/);
  expect(policies.find((p) => p.conditions[0].condition_matched_log).alert_strategy.notification_rate_limit.period).toBe('60s');
});

test('override: a start-up budget past the window delays a silent first step line to its due time, a shorter one changes nothing', () => {
  const scope = (due: number) => ({ clusterName: 'c', namespace: 'ns', pipelines: [{ name: 'sft-gemma4', kind: 'sft' as const, trainMainReplicatedJob: 'slice', firstStepDueMinutes: due }] });
  const late = notificationPlan(scope(80), MAIN_CONTAINER, 30).stall.query;
  expect(late).toContain('> 4800)\nor\n');
  expect(late).toContain('[80m]');
  expect(notificationPlan(scope(20), MAIN_CONTAINER, 30).stall.query).toBe(
    notificationPlan({ ...scope(0), pipelines: [{ name: 'sft-gemma4', kind: 'sft', trainMainReplicatedJob: 'slice' }] }, MAIN_CONTAINER, 30).stall.query,
  );
});

test('default: a pipeline whose model has a row gets its start-up budget; one without gets none', () => {
  // Weights in bf16 read at 50 MB/s, then 30 minutes of compile; twice with a rollout engine (RL).
  const qwen = modelSize('qwen3-30b-a3b')!;
  expect(trainStartMinutes('qwen3-30b-a3b', true)).toBe(Math.ceil(2 * ((qwen.params * 2) / 50e6 / 60 + 30)));
  expect(trainStartMinutes('qwen3-30b-a3b', false)).toBe(Math.ceil((qwen.params * 2) / 50e6 / 60 + 30));
  expect(trainStartMinutes('no-such-model', false)).toBeUndefined();
});

test('error: an address that is not one names NOTIFY_EMAIL and the value', () => {
  expect(() => exampleConfig({ NOTIFY_EMAIL: 'ml-team@example.com,oncall' })).toThrow(ConfigError);
  try {
    exampleConfig({ NOTIFY_EMAIL: 'ml-team@example.com,oncall' });
  } catch (err) {
    expect((err as Error).message).toContain('NOTIFY_EMAIL (env)');
    expect((err as Error).message).toContain("must be an email address such as ml-team@example.com, got 'oncall'");
  }
});

test('error: a construct without an address', () => {
  const stack = new TerraformStack(Testing.app(), 's');
  expect(() => new Notifications(stack, 'n', { emails: [], plan: notificationPlan({ clusterName: 'c', namespace: 'ns', pipelines: [] }, MAIN_CONTAINER) })).toThrow(
    'Notifications: emails must name at least one address',
  );
});
