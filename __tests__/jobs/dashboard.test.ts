import { dashboardPlan, dashboardUrl, DASHBOARD_COLUMNS, lossMetric } from '../../jobs/dashboard';
import { LOSS_VALUE_RE2, METRIC_LOGGER_LINES, TUNIX_TRAIN_LINES } from '../../jobs/run-log';
import { notifiedPipeline, stepLineMetric } from '../../jobs/notifications';
import { MAIN_CONTAINER } from '../../jobs/jobset';
import { exampleDeployment, WITH_SINGLE_HOST } from '../util';
import { dashboardProblems } from './dashboard-proto';

/** Every preset of the example config (the single-host pool on, so sft-gemma4 is built too). */
function presetScope() {
  const d = exampleDeployment(WITH_SINGLE_HOST);
  return { project: d.platform.project, clusterName: d.platform.clusterName, namespace: d.platform.namespace, pipelines: d.pipelines.map(notifiedPipeline) };
}

test('the dashboard of every preset is a valid google.monitoring.dashboard.v1.Dashboard (the protos at the pinned googleapis commit)', () => {
  const scope = presetScope();
  expect(scope.pipelines.map((p) => p.name).sort()).toEqual(['rl-gemma4', 'rl-llama3', 'rl-qwen3', 'sft-gemma4']);
  const plan = dashboardPlan(scope);
  expect(dashboardProblems(JSON.parse(JSON.stringify(plan.dashboard)))).toEqual([]);
});

test('the validator refuses what the API refuses: an unknown field, a bad enum, two layouts, a missing required field, a bad Duration', () => {
  expect(dashboardProblems({ displayName: 'x', gridLayout: { widgets: [{ title: 't', xyChart: { dataSets: [{ timeSeriesQuery: {}, plotType: 'LINES' }] } }] } })).toEqual([
    "Dashboard.gridLayout.widgets[0].xyChart.dataSets[0].plotType: 'LINES' is not one of PLOT_TYPE_UNSPECIFIED, LINE, STACKED_AREA, STACKED_BAR, HEATMAP",
  ]);
  expect(dashboardProblems({ displayName: 'x', mosaicLayout: {}, gridLayout: {} })).toEqual(['Dashboard: gridLayout and mosaicLayout are one oneof (layout)']);
  expect(dashboardProblems({ mosaicLayout: { tiles: [{ xPos: 1.5, widget: { titel: 'x' } }] } })).toEqual([
    'Dashboard.mosaicLayout.tiles[0].xPos: not an int32 (int32)',
    'Dashboard.mosaicLayout.tiles[0].widget.titel: no such field in google.monitoring.dashboard.v1.Widget',
    'Dashboard.displayName: required',
  ]);
  expect(dashboardProblems({ displayName: 'x', gridLayout: { widgets: [{ xyChart: { dataSets: [] } }] } })).toEqual([]);
  expect(dashboardProblems({ displayName: 'x', gridLayout: { widgets: [{ xyChart: { dataSets: [{ timeSeriesQuery: {}, minAlignmentPeriod: '60' }] } }] } })).toEqual([
    "Dashboard.gridLayout.widgets[0].xyChart.dataSets[0].minAlignmentPeriod: '60' is not a Duration (\"<seconds>s\")",
  ]);
  expect(dashboardProblems({ displayName: 'x', gridLayout: { widgets: [{ xyChart: {} }] } })).toEqual(['Dashboard.gridLayout.widgets[0].xyChart.dataSets: required']);
});

test('one section for the cluster, then one per pipeline with duty cycle, HBM, step rate, loss, eval and serve; tiles within the grid, none overlapping', () => {
  const scope = presetScope();
  const d = dashboardPlan(scope).dashboard as any;
  expect(d.name).toBe(`projects/${scope.project}/dashboards/tpu-post-training-${scope.clusterName}`);
  const tiles = d.mosaicLayout.tiles as any[];
  const headers = tiles.filter((t) => t.widget.sectionHeader).map((t) => t.widget.title);
  expect(headers).toEqual([`Cluster ${scope.clusterName}: Kueue`, ...scope.pipelines.map((p) => `Pipeline ${p.name}`)]);
  const titles = tiles.map((t) => t.widget.title as string);
  expect(titles.filter((t) => t.startsWith('rl-qwen3 '))).toEqual([
    'rl-qwen3 train: TPU duty cycle per host',
    'rl-qwen3 train: HBM used per host',
    'rl-qwen3 train: steps per minute',
    'rl-qwen3 train: loss',
    'rl-qwen3 eval: result lines (base vs trained)',
  ]);
  expect(titles).toContain('serve-rl-qwen3: vLLM server uptime (0 when down)');
  const cells = new Set<string>();
  for (const t of tiles) {
    expect(t.xPos + t.width).toBeLessThanOrEqual(DASHBOARD_COLUMNS);
    for (let x = t.xPos; x < t.xPos + t.width; x++) for (let y = t.yPos; y < t.yPos + t.height; y++) {
      expect(cells.has(`${x},${y}`)).toBe(false);
      cells.add(`${x},${y}`);
    }
  }
});

test("the TPU panels read GKE's container accelerator metrics of every host of the pipeline's train JobSet, by PromQL name", () => {
  const scope = presetScope();
  const tiles = (dashboardPlan(scope).dashboard as any).mosaicLayout.tiles as any[];
  const q = (title: string) => tiles.find((t) => t.widget.title === title).widget.xyChart.dataSets[0].timeSeriesQuery.prometheusQuery as string;
  const where = `monitored_resource="k8s_container",cluster_name="${scope.clusterName}",namespace_name="${scope.namespace}",container_name="${MAIN_CONTAINER}",pod_name=~"(rl-qwen3)-[a-z0-9]([-a-z0-9]*[a-z0-9])?-train-.+"`;
  const duty = q('rl-qwen3 train: TPU duty cycle per host');
  expect(duty).toBe(`avg by (pod_name) (kubernetes_io:container_accelerator_duty_cycle{${where}})`);
  expect(q('rl-qwen3 train: HBM used per host')).toBe(
    `100 * sum by (pod_name) (kubernetes_io:container_accelerator_memory_used{${where}}) / sum by (pod_name) (kubernetes_io:container_accelerator_memory_total{${where}})`,
  );
  // The pod pattern matches a train pod of this pipeline, not another step's nor another pipeline's.
  const pods = new RegExp(`^${/pod_name=~"([^"]+)"/.exec(duty)![1]}$`);
  expect(pods.test('rl-qwen3-r1-train-pathways-head-0-0-abcde')).toBe(true);
  expect(pods.test('rl-qwen3-r1-train-worker-0-3-abcde')).toBe(true);
  expect(pods.test('rl-qwen3-r1-eval-slice-0-0-abcde')).toBe(false);
  expect(pods.test('rl-gemma4-r1-train-worker-0-0-abcde')).toBe(false);
});

test('the loss metric counts the same lines as the stall alert and extracts the loss both trainers print', () => {
  const scope = presetScope();
  const m = lossMetric(scope);
  expect(m.name).toBe(`tpu-post-training/${scope.clusterName}/training-loss`);
  // The same lines the stall alert's step-line metric counts: same filter.
  expect(m.filter).toBe(stepLineMetric(scope, MAIN_CONTAINER).filter);
  expect(m.valueExtractor).toBe(`REGEXP_EXTRACT(textPayload, "${LOSS_VALUE_RE2}")`);
  const value = new RegExp(LOSS_VALUE_RE2);
  const sft = 'completed step: 12, seconds: 1.234, TFLOP/s/device: 100.1, Tokens/s/device: 2000.0, total_weights: 4096, loss: 1.234, lm_loss: 9.999, perplexity: 3.4';
  const rl = 'Train step 7 training loss: 0.0421 - training perplexity: 1.04';
  for (const [line, format] of [[sft, METRIC_LOGGER_LINES], [rl, TUNIX_TRAIN_LINES]] as const) {
    expect(value.exec(line)![1]).toBe(format.loss.exec(line)![1]);
  }
  expect(value.exec('completed step: 3, loss: 2.5e-3')![1]).toBe('2.5e-3');
});

test('the console link names the project and the dashboard id', () => {
  expect(dashboardUrl('acme tpu', 'dev-tpu')).toBe('https://console.cloud.google.com/monitoring/dashboards/custom/tpu-post-training-dev-tpu?project=acme%20tpu');
});


test('infra synthesizes the dashboard and its loss metric; the dashboard JSON (Terraform-escaped) is the plan, valid against the protos', () => {
  const { synthStack, resources } = require('../util');
  const tf = synthStack('infra');
  const dashboards = Object.values(resources(tf, 'google_monitoring_dashboard')) as any[];
  expect(dashboards).toHaveLength(1);
  const json = JSON.parse(dashboards[0].dashboard_json.replace(/\$\$\{/g, '${'));
  expect(dashboardProblems(json)).toEqual([]);
  const metrics = Object.values(resources(tf, 'google_logging_metric')) as any[];
  const loss = metrics.find((m) => m.name.endsWith('/training-loss'));
  expect(loss.metric_descriptor).toMatchObject({ metric_kind: 'DELTA', value_type: 'DISTRIBUTION' });
  expect(loss.bucket_options.exponential_buckets).toEqual({ num_finite_buckets: 64, growth_factor: 1.25, scale: 0.001 });
  expect(tf.output.dashboard_url.value).toMatch(/^https:\/\/console\.cloud\.google\.com\/monitoring\/dashboards\/custom\/tpu-post-training-/);
});
