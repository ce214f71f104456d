import type { LoggingMetric } from '@cdktf/provider-google/lib/logging-metric';
import type { MonitoringAlertPolicy } from '@cdktf/provider-google/lib/monitoring-alert-policy';
import type { MonitoringNotificationChannel } from '@cdktf/provider-google/lib/monitoring-notification-channel';
import { Construct } from 'constructs';
import { NotificationPlan, STEP_LINE_LABELS } from '../jobs/notifications';

/** The resource types Notifications creates (their APIs: constructs/project-apis.ts APIS_OF_OPTIONAL_RESOURCE). */
export const NOTIFICATION_RESOURCE_TYPES = ['google_monitoring_notification_channel', 'google_monitoring_alert_policy', 'google_logging_metric'] as const;

export interface NotificationsProps {
  /** Addresses to notify (NOTIFY_EMAIL / notify.emails); at least one. */
  readonly emails: readonly string[];
  /** What to notify about, as data (jobs/notifications.ts notificationPlan): filters, messages, the stall threshold. */
  readonly plan: NotificationPlan;
  /** Minimum time between two notifications of one incident (JobSet and reason), seconds. @default 300 */
  readonly rateLimitSeconds?: number;
}

/**
 * Email notifications of pipeline steps (NOTIFY_EMAIL): one Cloud Monitoring email channel per address, one
 * log-match alert policy per event class of jobs/notifications.ts (failed, restarted, completed, evicted by Kueue),
 * for stalls a log-based counter of training step lines and a PromQL policy (jobs/notifications.ts stallQuery):
 * a running training container without a step line past its first step line's due time; and for steps whose pods
 * never start a log-based counter of Kueue's Admitted/EvictedDueTo* Workload events and a PromQL policy
 * (neverStartedQuery): admitted, not evicted, and no container of the JobSet ran. Each notification names
 * the pipeline, the step and the JobSet (label extractors; one incident per JobSet and reason).
 *
 * Provider facts (hashicorp/terraform-provider-google v6.50.0 website/docs/r/monitoring_alert_policy.html.markdown):
 * `alert_strategy.notification_rate_limit` is required for a policy with a `condition_matched_log`; "each
 * combination of extracted values is treated as a separate rule"; `condition_absent.duration` is a whole number of
 * minutes; `documentation.subject` is cut to 255 bytes after expansion; `condition_prometheus_query_language` takes
 * `query`, `duration`, `evaluation_interval` (a multiple of 30 s) and `disable_metric_validation` ("allows alerting
 * policies to be defined on metrics that do not yet exist", the @cdktf/provider-google 16.12.1 binding of 6.50.0).
 */
/**
 * Terraform reads every string of its JSON as a template: a literal `${` (Cloud Monitoring's documentation variables,
 * `${log.extracted_label.jobset}`) is written `$${` (Terraform "String Templates": escape sequences).
 */
export function literal(text: string): string {
  return text.replace(/\$\{/g, () => '$${');
}

export class Notifications extends Construct {
  public readonly channels: MonitoringNotificationChannel[];
  public readonly policies: MonitoringAlertPolicy[] = [];
  public readonly stepLines: LoggingMetric;
  public readonly workloadEvents: LoggingMetric;

  constructor(scope: Construct, id: string, props: NotificationsProps) {
    super(scope, id);
    // Loaded here, not on import: a synth without notifications loads none of these provider modules (~0.9 MB of JS).
    const { LoggingMetric } = require('@cdktf/provider-google/lib/logging-metric') as typeof import('@cdktf/provider-google/lib/logging-metric');
    const { MonitoringAlertPolicy } = require('@cdktf/provider-google/lib/monitoring-alert-policy') as typeof import('@cdktf/provider-google/lib/monitoring-alert-policy');
    const { MonitoringNotificationChannel } = require('@cdktf/provider-google/lib/monitoring-notification-channel') as typeof import('@cdktf/provider-google/lib/monitoring-notification-channel');
    const { plan } = props;
    if (props.emails.length === 0) throw new Error('Notifications: emails must name at least one address');
    this.channels = props.emails.map(
      (email, i) =>
        new MonitoringNotificationChannel(this, `email-${i}`, {
          displayName: `tpu-post-training ${plan.clusterName}: ${email}`,
          type: 'email',
          labels: { email_address: email },
        }),
    );
    const channels = this.channels.map((c) => c.name);
    const rateLimit = `${props.rateLimitSeconds ?? 300}s`;
    for (const event of plan.events) {
      this.policies.push(
        new MonitoringAlertPolicy(this, event.id, {
          displayName: `tpu-post-training ${plan.clusterName}: step ${event.id}`,
          combiner: 'OR',
          severity: event.severity,
          conditions: [
            {
              displayName: `${event.kind} event: ${event.id}`,
              conditionMatchedLog: { filter: event.filter, labelExtractors: { ...event.labelExtractors } },
            },
          ],
          alertStrategy: { notificationRateLimit: { period: rateLimit }, autoClose: '1800s' },
          notificationChannels: channels,
          documentation: { mimeType: 'text/markdown', subject: literal(event.subject), content: literal(event.content) },
        }),
      );
    }

    const minutes = plan.stall.minutes;
    const metric = plan.stepLines;
    this.stepLines = new LoggingMetric(this, 'step-lines', {
      name: metric.name,
      description: 'Training step lines (MaxText SFT "completed step", Tunix "Train step N training loss") of the training main container',
      filter: metric.filter,
      metricDescriptor: {
        metricKind: 'DELTA',
        valueType: 'INT64',
        unit: '1',
        labels: STEP_LINE_LABELS.map((l) => ({ ...l })),
      },
      labelExtractors: { ...metric.labelExtractors },
    });
    this.policies.push(
      new MonitoringAlertPolicy(this, 'stalled', {
        displayName: `tpu-post-training ${plan.clusterName}: training stalled`,
        combiner: 'OR',
        severity: 'WARNING',
        conditions: [
          {
            displayName: `training container running, no step line for ${minutes} min`,
            conditionPrometheusQueryLanguage: {
              query: plan.stall.query,
              duration: '0s',
              evaluationInterval: '60s',
              // The step-line metric is created in the same apply; Monitoring would refuse a condition on a metric it
              // has not propagated yet (up to 10 minutes, hashicorp/terraform-provider-google#11102).
              disableMetricValidation: true,
            },
          },
        ],
        alertStrategy: { autoClose: '1800s' },
        notificationChannels: channels,
        dependsOn: [this.stepLines],
        documentation: { mimeType: 'text/markdown', subject: literal(plan.stall.subject), content: literal(plan.stall.content) },
      }),
    );

    const events = plan.workloadEvents;
    this.workloadEvents = new LoggingMetric(this, 'workload-events', {
      name: events.name,
      description: "Kueue's Admitted and EvictedDueTo* events on the pipeline steps' Workloads",
      filter: events.filter,
      metricDescriptor: {
        metricKind: 'DELTA',
        valueType: 'INT64',
        unit: '1',
        labels: [
          { key: 'jobset', valueType: 'STRING', description: 'JobSet of the step' },
          { key: 'reason', valueType: 'STRING', description: 'event reason: Admitted or EvictedDueTo<reason>' },
        ],
      },
      labelExtractors: { ...events.labelExtractors },
    });
    this.policies.push(
      new MonitoringAlertPolicy(this, 'never-started', {
        displayName: `tpu-post-training ${plan.clusterName}: step pods never started`,
        combiner: 'OR',
        severity: 'ERROR',
        conditions: [
          {
            displayName: `step admitted ${plan.neverStarted.minutes} min ago, no container ran`,
            conditionPrometheusQueryLanguage: {
              query: plan.neverStarted.query,
              duration: '0s',
              evaluationInterval: '60s',
              // Created in the same apply as the metric (see the stall policy).
              disableMetricValidation: true,
            },
          },
        ],
        alertStrategy: { autoClose: '1800s' },
        notificationChannels: channels,
        dependsOn: [this.workloadEvents],
        documentation: { mimeType: 'text/markdown', subject: literal(plan.neverStarted.subject), content: literal(plan.neverStarted.content) },
      }),
    );
  }
}
