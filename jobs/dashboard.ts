/**
 * The cluster's Cloud Monitoring dashboard, as data: one section for the cluster (Kueue), then one panel set per
 * pipeline (the training step's TPU duty cycle and HBM use, its step rate and loss, the eval step's result lines, the
 * serve stack's server), and the one log-based metric it needs (training loss, a distribution whose count is the step
 * rate). Pure; constructs/dashboard.ts turns it into a `google_monitoring_dashboard` and a `google_logging_metric`.
 *
 * Facts, read where cited:
 *   - Dashboard JSON: the Monitoring API's `google.monitoring.dashboard.v1.Dashboard` (googleapis/googleapis
 *     f8291d2b89f0017ab078a4c7378069bae5686f6f, google/monitoring/dashboard/v1/*.proto), in proto3 JSON (lowerCamelCase
 *     field names, enums by name); `__tests__/jobs/dashboard-schema.test.ts` validates every dashboard against those
 *     protos. `MosaicLayout.columns` is at most 48 (layouts.proto). The dashboard's resource name is
 *     `projects/{project}/dashboards/{dashboard}` (dashboard.proto `google.api.resource`); CreateDashboardRequest says
 *     "The [PROJECT_ID_OR_NUMBER] must match the dashboard resource name" (dashboards_service.proto), so the name is ours
 *     to give, and the console link of `npm run status` is known before the dashboard exists.
 *   - TPU metrics: GKE system metrics `kubernetes.io/container/accelerator/duty_cycle` (GAUGE INT64, percent of the
 *     sample period the accelerator was busy), `kubernetes.io/container/accelerator/memory_used` and `memory_total`
 *     (GAUGE INT64, bytes), on `k8s_container`, sampled every 60 s (Cloud Monitoring "Kubernetes metrics",
 *     https://cloud.google.com/monitoring/api/metrics_kubernetes; GKE "Deploy TPU workloads in GKE Standard",
 *     https://cloud.google.com/kubernetes-engine/docs/how-to/tpus, "Observability and metrics": reported for TPU
 *     containers of GKE 1.27.4-gke.900+ with system metrics on, the GKE default).
 *   - PromQL names: the first `/` becomes `:`, other non-alphanumerics `_`; a distribution-valued metric is read as
 *     `<name>_count`, `<name>_sum`, `<name>_bucket` (Cloud Monitoring "PromQL for Cloud Monitoring users", metric
 *     mapping); `monitored_resource` selects the resource type (jobs/notifications.ts promqlMetricName, the stall alert).
 *   - Log-based distribution metric: `value_extractor` is `REGEXP_EXTRACT(field, "re")` with one capturing group, the
 *     metric descriptor DELTA DISTRIBUTION, `bucket_options` required (hashicorp/terraform-provider-google v6.50.0
 *     website/docs/r/logging_metric.html.markdown, the @cdktf/provider-google 16.12.1 binding).
 *   - Kueue v0.19.2 exports Prometheus metrics (kubernetes-sigs/kueue v0.19.2 site/content/en/docs/reference/metrics.md:
 *     `kueue_pending_workloads{cluster_queue,status}`, `kueue_admitted_active_workloads{cluster_queue}`,
 *     `kueue_cluster_queue_resource_usage{cluster_queue,flavor,resource}`) on its controller's metrics Service. Its chart
 *     leaves them unscraped by default (charts/kueue/values.yaml `enablePrometheus: false`, which would add a
 *     prometheus-operator ServiceMonitor, not GKE managed Prometheus' PodMonitoring), and this project sets neither
 *     (constructs/controllers.ts), so Cloud Monitoring has no Kueue metric: the dashboard says so and shows what the
 *     cluster does export, Kueue's Workload events in Cloud Logging (log_id("events"), jobs/notifications.ts).
 */
import { MAIN_CONTAINER } from './jobset';
import { jobSetNameRe2, promqlMetricName, NotificationScope, NotifiedPipeline, stepLineMetric } from './notifications';
import { LOSS_VALUE_RE2 } from './run-log';
import { serveNames } from './serve';
import { EVAL_RESULT_PREFIX } from './eval';

/** The vLLM server's container in the serve Deployment (jobs/serve.ts serveManifests). */
export const SERVE_CONTAINER = 'vllm';

/** Grid columns of the dashboard's mosaic layout (at most 48: layouts.proto MosaicLayout.columns). */
export const DASHBOARD_COLUMNS = 48;
const TILE_WIDTH = 16;
const TILE_HEIGHT = 16;

/** What a dashboard covers: the project and cluster it lives in, the namespace, the pipelines (notifications' scope). */
export interface DashboardScope extends NotificationScope {
  readonly project: string;
}

/** A log-based metric as data (constructs/dashboard.ts). */
export interface LogDistributionMetric {
  /** The metric id under logging.googleapis.com/user/. */
  readonly name: string;
  readonly description: string;
  readonly filter: string;
  /** `REGEXP_EXTRACT(textPayload, "...")`: the loss value of the line. */
  readonly valueExtractor: string;
  readonly labelExtractors: Readonly<Record<string, string>>;
  /** Exponential buckets (loss spans orders of magnitude over a run). */
  readonly buckets: { readonly numFiniteBuckets: number; readonly growthFactor: number; readonly scale: number };
}

export interface DashboardPlan {
  /** The dashboard's id: `tpu-post-training-<cluster>`. */
  readonly id: string;
  readonly displayName: string;
  /** The Dashboard object (proto3 JSON), with its resource name. */
  readonly dashboard: Readonly<Record<string, unknown>>;
  readonly lossMetric: LogDistributionMetric;
  /** The console link `npm run status` prints. */
  readonly url: string;
}

/** The dashboard's id in its project (one per cluster). */
export function dashboardId(clusterName: string): string {
  return `tpu-post-training-${clusterName}`;
}

/** The Cloud console link of a cluster's dashboard (the Monitoring console's custom-dashboard page). */
export function dashboardUrl(project: string, clusterName: string): string {
  return `https://console.cloud.google.com/monitoring/dashboards/custom/${dashboardId(clusterName)}?project=${encodeURIComponent(project)}`;
}

/** The loss metric's id (`logging.googleapis.com/user/<id>`). */
export function lossMetricName(clusterName: string): string {
  return `tpu-post-training/${clusterName}/training-loss`;
}

/** RE2 of the pods of one step's JobSet (every host of the slice): `<pipeline>-<run>-<step>-<replicated job>-...`. */
function stepPodsRe2(scope: NotificationScope, p: NotifiedPipeline, step: 'train' | 'eval'): string {
  const one = { ...scope, pipelines: [p] };
  return `${jobSetNameRe2(one).replace(/\([a-z|-]+\)$/, step)}-.+`;
}

/**
 * The training loss metric: one distribution point per step line of a training main container (the step lines the
 * stall alert counts, jobs/notifications.ts stepLineMetric), valued by the loss on the line (jobs/run-log.ts
 * LOSS_VALUE_RE2), labelled by pipeline and JobSet.
 */
export function lossMetric(scope: NotificationScope): LogDistributionMetric {
  const steps = stepLineMetric(scope, MAIN_CONTAINER);
  return {
    name: lossMetricName(scope.clusterName),
    description: 'Training loss per step line (MaxText "completed step: N, ... loss: L", Tunix "Train step N training loss: L") of the training main container',
    filter: steps.filter,
    valueExtractor: `REGEXP_EXTRACT(textPayload, "${LOSS_VALUE_RE2}")`,
    labelExtractors: steps.labelExtractors,
    // 64 buckets from 1e-3 growing by 1.25: up to ~1.6e3, fine enough for a median per minute.
    buckets: { numFiniteBuckets: 64, growthFactor: 1.25, scale: 0.001 },
  };
}

type Widget = Record<string, unknown>;

function chart(title: string, query: string, yLabel: string, unit?: string): Widget {
  return {
    title,
    xyChart: {
      dataSets: [{ timeSeriesQuery: { prometheusQuery: query, ...(unit ? { unitOverride: unit } : {}) }, plotType: 'LINE' }],
      yAxis: { label: yLabel, scale: 'LINEAR' },
    },
  };
}

function logs(title: string, filter: string, project: string): Widget {
  return { title, logsPanel: { filter, resourceNames: [`projects/${project}`] } };
}

/** The panels of one pipeline, in reading order. */
export function pipelineWidgets(scope: DashboardScope, p: NotifiedPipeline): Widget[] {
  const container = (pods: string, c = MAIN_CONTAINER) =>
    `monitored_resource="k8s_container",cluster_name="${scope.clusterName}",namespace_name="${scope.namespace}",container_name="${c}",pod_name=~"${pods}"`;
  const train = container(stepPodsRe2(scope, p, 'train'));
  const tpu = (m: string) => promqlMetricName(`kubernetes.io/container/accelerator/${m}`);
  const loss = promqlMetricName(`logging.googleapis.com/user/${lossMetricName(scope.clusterName)}`);
  const lossWhere = `monitored_resource="k8s_container",cluster_name="${scope.clusterName}",pipeline="${p.name}"`;
  const serve = serveNames(p.name);
  const serveWhere = `monitored_resource="k8s_container",cluster_name="${scope.clusterName}",namespace_name="${scope.namespace}",container_name="${SERVE_CONTAINER}",pod_name=~"${serve.name}-.+"`;
  const evalPods = stepPodsRe2(scope, p, 'eval');
  return [
    chart(`${p.name} train: TPU duty cycle per host`, `avg by (pod_name) (${tpu('duty_cycle')}{${train}})`, 'duty cycle (%)', '%'),
    chart(
      `${p.name} train: HBM used per host`,
      `100 * sum by (pod_name) (${tpu('memory_used')}{${train}}) / sum by (pod_name) (${tpu('memory_total')}{${train}})`,
      'HBM used (% of total)',
      '%',
    ),
    chart(`${p.name} train: steps per minute`, `60 * sum by (jobset) (rate(${loss}_count{${lossWhere}}[5m]))`, 'steps / min'),
    chart(`${p.name} train: loss`, `sum by (jobset) (rate(${loss}_sum{${lossWhere}}[5m])) / sum by (jobset) (rate(${loss}_count{${lossWhere}}[5m]))`, 'loss (mean per 5 min)'),
    logs(
      `${p.name} eval: result lines (base vs trained)`,
      [
        'resource.type="k8s_container"',
        `resource.labels.cluster_name="${scope.clusterName}"`,
        `resource.labels.namespace_name="${scope.namespace}"`,
        `resource.labels.container_name="${MAIN_CONTAINER}"`,
        `resource.labels.pod_name=~"^${evalPods}$"`,
        `textPayload:"${EVAL_RESULT_PREFIX.trim()}"`,
      ].join('\n'),
      scope.project,
    ),
    chart(`serve-${p.name}: vLLM server uptime (0 when down)`, `max by (pod_name) (${promqlMetricName('kubernetes.io/container/uptime')}{${serveWhere}})`, 'uptime (s)', 's'),
  ];
}

/** The cluster section: Kueue's state as far as the cluster exports it (see the module doc). */
export function clusterWidgets(scope: DashboardScope): Widget[] {
  const workloads = `^jobset-${jobSetNameRe2(scope)}-[0-9a-f]{5}$`;
  return [
    {
      title: `Kueue (cluster ${scope.clusterName})`,
      text: {
        format: 'MARKDOWN',
        content:
          "Kueue's Prometheus metrics (`kueue_pending_workloads`, `kueue_admitted_active_workloads`, " +
          '`kueue_cluster_queue_resource_usage`) are not scraped on this cluster (no PodMonitoring for the Kueue controller), ' +
          "so this section shows Kueue's Workload events from Cloud Logging: `QuotaReserved`, `Admitted`, `Pending`, `EvictedDueTo*`. " +
          'What holds the quota now: `npm run status`.',
      },
    },
    logs(
      'Kueue Workload events of the pipeline steps',
      [
        'log_id("events")',
        `resource.labels.cluster_name="${scope.clusterName}"`,
        `jsonPayload.involvedObject.namespace="${scope.namespace}"`,
        'jsonPayload.involvedObject.kind="Workload"',
        `jsonPayload.involvedObject.name=~"${workloads}"`,
      ].join('\n'),
      scope.project,
    ),
  ];
}

/** Lays widgets out in rows of DASHBOARD_COLUMNS / TILE_WIDTH tiles; a section header spans the width. */
function tiles(sections: ReadonlyArray<{ header: string; widgets: Widget[] }>): Widget[] {
  const out: Widget[] = [];
  let y = 0;
  const perRow = DASHBOARD_COLUMNS / TILE_WIDTH;
  for (const s of sections) {
    out.push({ xPos: 0, yPos: y, width: DASHBOARD_COLUMNS, height: 4, widget: { title: s.header, sectionHeader: { dividerBelow: true } } });
    y += 4;
    s.widgets.forEach((widget, i) => {
      out.push({ xPos: (i % perRow) * TILE_WIDTH, yPos: y + Math.floor(i / perRow) * TILE_HEIGHT, width: TILE_WIDTH, height: TILE_HEIGHT, widget });
    });
    y += Math.ceil(s.widgets.length / perRow) * TILE_HEIGHT;
  }
  return out;
}

/** The dashboard of a cluster and the log-based metric it reads. */
export function dashboardPlan(scope: DashboardScope): DashboardPlan {
  const id = dashboardId(scope.clusterName);
  const displayName = `tpu-post-training ${scope.clusterName}`;
  const sections = [
    { header: `Cluster ${scope.clusterName}: Kueue`, widgets: clusterWidgets(scope) },
    ...scope.pipelines.map((p) => ({ header: `Pipeline ${p.name}`, widgets: pipelineWidgets(scope, p) })),
  ];
  return {
    id,
    displayName,
    dashboard: {
      name: `projects/${scope.project}/dashboards/${id}`,
      displayName,
      mosaicLayout: { columns: DASHBOARD_COLUMNS, tiles: tiles(sections) },
    },
    lossMetric: lossMetric(scope),
    url: dashboardUrl(scope.project, scope.clusterName),
  };
}
