/**
 * The rule list: one file per rule (review/rules/<id>.ts), unique ids, and a test for each id (here, or in
 * findings/plan/report tests, which assert `rule: '<id>'`). Below: the rules not covered elsewhere.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Finding, review } from '../../review/findings';
import { extractStack } from '../../review/model';
import { reviewPlan } from '../../review/plan';
import { RULES } from '../../review/rules';
import { asTf, infraJson, pipelineJson } from './fixtures';

type Json = Record<string, any>;
const RULES_DIR = path.join(__dirname, '..', '..', 'review', 'rules');
const HELPERS = new Set(['types', 'index', 'infra-view', 'plan-facts', 'plan-reasons']);

function run(infra: Json = infraJson(), pipeline: Json = pipelineJson()): Finding[] {
  const stacks: Array<[string, Json]> = [['infra', infra], ['rl-qwen3', pipeline]];
  return review(stacks.map(([name, json]) => extractStack(name, asTf(json))));
}
const only = (fs: Finding[], rule: string) => fs.filter((f) => f.rule === rule);

test('every rule has a unique id, lives in the file named after it, and is in the list', () => {
  const ids = RULES.map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  const files = fs.readdirSync(RULES_DIR).map((f) => f.replace(/\.ts$/, '')).filter((f) => !HELPERS.has(f)).sort();
  expect([...ids].sort()).toEqual(files);
  for (const r of RULES) {
    expect(fs.readFileSync(path.join(RULES_DIR, `${r.id}.ts`), 'utf8')).toContain(`id: '${r.id}'`);
    expect(r.summary.length).toBeGreaterThan(10);
  }
});

test('every rule id is asserted by some test', () => {
  const tests = fs.readdirSync(__dirname).filter((f) => f.endsWith('.test.ts')).map((f) => fs.readFileSync(path.join(__dirname, f), 'utf8')).join('\n');
  expect(RULES.map((r) => r.id).filter((id) => !tests.includes(`'${id}'`))).toEqual([]);
});

test('bucket-acls (warning) and bucket-public-access (note)', () => {
  const infra = infraJson();
  infra.resource.google_storage_bucket.bucket.uniform_bucket_level_access = false;
  delete infra.resource.google_storage_bucket.bucket.public_access_prevention;
  const found = run(infra);
  expect(only(found, 'bucket-acls')).toEqual([expect.objectContaining({ severity: 'warning', message: 'bucket proj-post-training allows object ACLs (uniform_bucket_level_access is not true)' })]);
  expect(only(found, 'bucket-public-access')).toEqual([expect.objectContaining({ severity: 'note', message: 'bucket proj-post-training: public_access_prevention is inherited, not enforced' })]);
});

test('capacity-conflict: a spot TPU pool that also consumes a reservation', () => {
  const infra = infraJson();
  infra.resource.google_container_node_pool['tpu-8'].node_config.spot = true;
  expect(only(run(infra), 'capacity-conflict')).toEqual([
    expect.objectContaining({ severity: 'error', address: 'google_container_node_pool.tpu-8', message: 'TPU pool tpu-v6e-8-8t-0 is spot but reservation_affinity is SPECIFIC_RESERVATION' }),
  ]);
});

test('cluster-default-pool-sa and public-nodes', () => {
  const infra = infraJson();
  infra.resource.google_container_cluster.gke.remove_default_node_pool = false;
  infra.resource.google_container_cluster.gke.private_cluster_config.enable_private_nodes = false;
  const found = run(infra);
  expect(only(found, 'cluster-default-pool-sa')).toEqual([expect.objectContaining({ severity: 'error', address: 'google_container_cluster.gke' })]);
  expect(only(found, 'public-nodes')).toEqual([expect.objectContaining({ severity: 'warning', address: 'google_container_cluster.gke' })]);
});

test('jobset-no-queue and jobset-no-timeout', () => {
  const pipeline = pipelineJson();
  delete pipeline.resource.kubernetes_manifest.train.manifest.metadata.labels['kueue.x-k8s.io/queue-name'];
  delete pipeline.resource.kubernetes_manifest['to-hf'].timeouts;
  const found = run(undefined, pipeline);
  expect(only(found, 'jobset-no-queue')).toEqual([expect.objectContaining({ severity: 'warning', message: 'JobSet qwen3-8b-train requests 32 TPU chips without a kueue.x-k8s.io/queue-name label' })]);
  expect(only(found, 'jobset-no-timeout')).toEqual([expect.objectContaining({ severity: 'note', address: 'kubernetes_manifest.to-hf' })]);
});

test('kueue-quota-over: more quota than chips', () => {
  const infra = infraJson();
  const values = JSON.parse(infra.resource.helm_release.queues.values[0]);
  values.objects[0].spec.resourceGroups[0].flavors[0].resources[0].nominalQuota = 64;
  infra.resource.helm_release.queues.values = [JSON.stringify(values)];
  expect(only(run(infra), 'kueue-quota-over')).toEqual([expect.objectContaining({ severity: 'warning', message: expect.stringMatching(/^Kueue TPU quota 64 exceeds the 40 chips/) })]);
});

test('tpu-no-placement, tpu-node-count-unset and tpu-on-demand', () => {
  const infra = infraJson();
  delete infra.resource.google_container_node_pool['tpu-32'].placement_policy;
  infra.resource.google_container_node_pool['tpu-32'].node_config.labels = { 'cloud.google.com/gke-tpu-topology': '4x8' };
  delete infra.resource.google_container_node_pool['tpu-8'].node_count;
  infra.resource.google_container_node_pool['tpu-8'].node_config.reservation_affinity = { consume_reservation_type: 'NO_RESERVATION' };
  const found = run(infra);
  // topology from the labels only: the multi-host pool has no placement policy
  expect(only(found, 'tpu-no-placement')).toEqual([]);
  expect(only(found, 'tpu-node-count-unset')).toEqual([expect.objectContaining({ severity: 'warning', message: 'TPU pool tpu-v6e-8-8t-0: node_count is not set', fix: 'set node_count = 1' })]);
  expect(only(found, 'tpu-on-demand')).toEqual([expect.objectContaining({ severity: 'warning', address: 'google_container_node_pool.tpu-8' })]);
  const raw = extractStack('infra', asTf(infra)).tpuPools.find((p) => p.name === 'tpu-v6e-32-0')!;
  expect(raw.topology).toBe('4x8');
});

test('tpu-no-placement: a multi-host pool whose topology is nowhere', () => {
  const infra = infraJson();
  delete infra.resource.google_container_node_pool['tpu-32'].placement_policy;
  // no topology at all: the slice is unknown (tpu-slice-unknown); tpu-no-placement needs a slice, so give it by label
  // on a pool whose placement policy is dropped after the slice is known
  const m = extractStack('infra', asTf(infra));
  const pool = { ...m.tpuPools[0]!, topology: undefined, slice: extractStack('infra', asTf(infraJson())).tpuPools[0]!.slice };
  const found = review([{ ...m, tpuPools: [pool] }]);
  expect(only(found, 'tpu-no-placement')).toEqual([
    expect.objectContaining({ severity: 'error', fix: 'set placement_policy { type = "COMPACT", tpu_topology = "4x8" }' }),
  ]);
});

describe('plan rules on hand-made plans', () => {
  const change = (address: string, actions: string[], before: unknown, after: unknown) => ({
    address, mode: 'managed', type: address.split('.')[0], name: address.split('.')[1], change: { actions, before, after },
  });
  const plan = (...changes: unknown[]) => reviewPlan('infra', 'p.json', { format_version: '1.2', resource_changes: changes });

  test('plan-replaces-pool: a CPU node pool replaced', () => {
    const cpu = infraJson().resource.google_container_node_pool.cpu;
    const found = review([], [], [plan(change('google_container_node_pool.cpu', ['delete', 'create'], cpu, { ...cpu, name: 'cpu-np-2' }))]);
    expect(only(found, 'plan-replaces-pool')).toEqual([expect.objectContaining({ severity: 'warning', message: 'node pool google_container_node_pool.cpu is replaced: pods on it are evicted' })]);
  });

  test('plan-deletes-jobset and plan-deletes-secret', () => {
    const hf = pipelineJson().resource.kubernetes_manifest['to-hf'];
    const found = review([], [], [plan(
      change('kubernetes_manifest.to-hf', ['delete'], hf, null),
      change('google_secret_manager_secret.hf', ['delete'], { secret_id: 'hf-token' }, null),
    )]);
    expect(only(found, 'plan-deletes-jobset')).toEqual([expect.objectContaining({ severity: 'warning', message: 'JobSet qwen3-8b-to-hf (export) is deleted' })]);
    expect(only(found, 'plan-deletes-secret')).toEqual([expect.objectContaining({ severity: 'warning', address: 'google_secret_manager_secret.hf' })]);
  });

  test('plan-deletes-running-workflow: from Argo\'s phase label in what provider v2.38.0 stores (never object.status): running or unknown is an error, completed a warning', () => {
    const { pipelineWorkflow } = require('../../jobs/argo');
    const { buildPipeline } = require('../../jobs/pipeline');
    const { RECIPES } = require('../../jobs/recipes');
    const { testPlatform } = require('../jobs/fixtures');
    const manifest = pipelineWorkflow(buildPipeline(RECIPES['rl-qwen3'], testPlatform(), { runId: 'r1' }), { systemPool: 'system' });
    // hashicorp/terraform-provider-kubernetes v2.38.0 stores `object` without status (manifest/provider/resource.go
    // l.119-124, 184-185) and with the cluster's labels (computed_fields default), where Argo v4.1.2 keeps the phase.
    const live = (labels: Record<string, string>) => ({ manifest, object: { ...manifest, metadata: { ...manifest.metadata, labels: { ...manifest.metadata.labels, ...labels } } } });
    const running = { 'workflows.argoproj.io/phase': 'Running' };
    const destroyed = review([], [], [plan(change('kubernetes_manifest.workflow', ['delete'], live(running), null))]);
    expect(only(destroyed, 'plan-deletes-running-workflow')).toEqual([expect.objectContaining({ severity: 'error', address: 'kubernetes_manifest.workflow' })]);
    expect(only(destroyed, 'plan-deletes-running-workflow')[0]!.message).toBe(
      "the pipeline Workflow is deleted (the pipeline is destroyed) while it runs (Argo's phase label at the plan's refresh: Running): its JobSets rl-qwen3-r1-to-maxtext, rl-qwen3-r1-train, rl-qwen3-r1-to-hf, rl-qwen3-r1-eval are deleted with it, stopping the run",
    );
    // Not read as one JobSet deleted
    expect(only(destroyed, 'plan-deletes-jobset')).toEqual([]);
    const changed = review([], [], [plan(change('kubernetes_manifest.workflow', ['delete', 'create'], live(running), { manifest }))]);
    expect(only(changed, 'plan-deletes-running-workflow')[0]).toMatchObject({ severity: 'error', message: expect.stringContaining('replaced (its spec changed) while it runs') });
    const unknown = review([], [], [plan(change('kubernetes_manifest.workflow', ['delete'], live({}), null))]);
    expect(only(unknown, 'plan-deletes-running-workflow')[0]).toMatchObject({ severity: 'error', message: expect.stringContaining('cannot tell whether it runs') });
    const finished = review([], [], [plan(change('kubernetes_manifest.workflow', ['delete'], live({ 'workflows.argoproj.io/phase': 'Succeeded', 'workflows.argoproj.io/completed': 'true' }), null))]);
    expect(only(finished, 'plan-deletes-running-workflow')).toEqual([expect.objectContaining({ severity: 'warning' })]);
    const created = review([], [], [plan(change('kubernetes_manifest.workflow', ['create'], null, { manifest }))]);
    expect(only(created, 'plan-deletes-running-workflow')).toEqual([]);
  });

  test('plan-reruns-step: a replaced conversion says whether it reuses the converted checkpoint', () => {
    const conv = pipelineJson().resource.kubernetes_manifest['to-maxtext'];
    const withSkip = (dir: string) => {
      const c = JSON.parse(JSON.stringify(conv));
      const ctr = c.manifest.spec.replicatedJobs[0].template.spec.template.spec.containers[0];
      ctr.args = [`if python3 -c "import sys, gcsfs; sys.exit(0 if gcsfs.GCSFileSystem().exists('b/m/max-text-format/${dir}/0/commit_success.txt') else 1)"; then exit 0; fi\npython3 -m maxtext.checkpoint_conversion.to_maxtext model_name=qwen3-8b base_output_directory=gs://b/m/max-text-format/${dir}/ scan_layers=${dir === 'aaa' ? 'True' : 'False'}`];
      return c;
    };
    const same = review([], [], [plan(change('kubernetes_manifest.to-maxtext', ['delete', 'create'], withSkip('aaa'), { ...withSkip('aaa'), timeouts: { create: '3h' } }))]);
    expect(only(same, 'plan-reruns-step')[0]!.message).toBe(
      'JobSet qwen3-8b-to-maxtext (conversion) is replaced: reuses the converted checkpoint at gs://b/m/max-text-format/aaa/ (same conversion arguments; the step exits at once when it is complete)',
    );
    const changed = review([], [], [plan(change('kubernetes_manifest.to-maxtext', ['delete', 'create'], withSkip('aaa'), withSkip('bbb')))]);
    expect(only(changed, 'plan-reruns-step')[0]!.message).toBe(
      'JobSet qwen3-8b-to-maxtext (conversion) is replaced: re-runs conversion into gs://b/m/max-text-format/bbb/ (conversion arguments changed: scan_layers: True -> False)',
    );
  });
});

describe('google_container_node_pool describer (provider v6.50.0 ForceNew model)', () => {
  const { forcesReplacement, leadingPath, isTpuPoolAttrs } = require('../../review/resources/container-node-pool');
  const { TPU_MACHINE_TYPES } = require('../../jobs/tpu');

  test('ForceNew paths replace the pool; node_count, autoscaling, machine type and zones are in place', () => {
    for (const p of ['placement_policy[0].tpu_topology', 'placement_policy.tpu_topology', 'node_config[0].spot', 'node_config.reservation_affinity.values[0]', 'initial_node_count', 'name']) {
      expect([p, forcesReplacement(p)]).toEqual([p, true]);
    }
    for (const p of ['node_count', 'autoscaling[0].total_max_node_count', 'node_config[0].machine_type', 'node_locations[0]', 'node_config.labels.team', 'version']) {
      expect([p, forcesReplacement(p)]).toEqual([p, false]);
    }
    expect(leadingPath('node_config[0].machine_type')).toBe('node_config.machine_type');
    expect(leadingPath('autoscaling[0].max_node_count')).toBe('autoscaling');
  });

  test('TPU pools are recognised through the TPU table (jobs/tpu.ts), not a machine-type prefix', () => {
    const pool = (machineType: string) => ({ node_config: { machine_type: machineType } });
    for (const t of TPU_MACHINE_TYPES) expect(isTpuPoolAttrs(pool(t))).toBe(true);
    expect(isTpuPoolAttrs(pool('ct6e-standard-99t'))).toBe(false);
    expect(isTpuPoolAttrs(pool('n4-highmem-64'))).toBe(false);
  });
});
