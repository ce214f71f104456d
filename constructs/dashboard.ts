import type { LoggingMetric } from '@cdktf/provider-google/lib/logging-metric';
import type { MonitoringDashboard } from '@cdktf/provider-google/lib/monitoring-dashboard';
import { Construct } from 'constructs';
import type { DashboardPlan } from '../jobs/dashboard';
import { STEP_LINE_LABELS } from '../jobs/notifications';
import { literal } from './notifications';

export interface DashboardProps {
  /** The dashboard and its loss metric, as data (jobs/dashboard.ts dashboardPlan). */
  readonly plan: DashboardPlan;
}

/**
 * The cluster's Cloud Monitoring dashboard (jobs/dashboard.ts; its APIs: constructs/project-apis.ts APIS_OF_RESOURCE): a `google_monitoring_dashboard` whose
 * `dashboard_json` is the plan's Dashboard object, and the `google_logging_metric` of training loss it charts (a
 * DELTA DISTRIBUTION with a value extractor; hashicorp/terraform-provider-google v6.50.0
 * website/docs/r/logging_metric.html.markdown: `bucket_options` is required for a distribution). Terraform reads
 * `${` in a string as a template, so the JSON is written through `literal` (constructs/notifications.ts).
 */
export class Dashboard extends Construct {
  public readonly dashboard: MonitoringDashboard;
  public readonly lossMetric: LoggingMetric;

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    // Loaded here, not on import: a synth without the dashboard loads neither provider module.
    const { LoggingMetric } = require('@cdktf/provider-google/lib/logging-metric') as typeof import('@cdktf/provider-google/lib/logging-metric');
    const { MonitoringDashboard } = require('@cdktf/provider-google/lib/monitoring-dashboard') as typeof import('@cdktf/provider-google/lib/monitoring-dashboard');
    const m = props.plan.lossMetric;
    this.lossMetric = new LoggingMetric(this, 'training-loss', {
      name: m.name,
      description: m.description,
      filter: m.filter,
      valueExtractor: m.valueExtractor,
      metricDescriptor: {
        metricKind: 'DELTA',
        valueType: 'DISTRIBUTION',
        unit: '1',
        labels: STEP_LINE_LABELS.map((l) => ({ ...l })),
      },
      labelExtractors: { ...m.labelExtractors },
      bucketOptions: { exponentialBuckets: { ...m.buckets } },
    });
    this.dashboard = new MonitoringDashboard(this, 'dashboard', {
      dashboardJson: literal(JSON.stringify(props.plan.dashboard)),
      dependsOn: [this.lossMetric],
    });
  }
}
