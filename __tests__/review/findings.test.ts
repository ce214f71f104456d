import { Finding, review, secretFindings } from '../../review/findings';
import { extractStack } from '../../review/model';
import { asTf, infraJson, pipelineJson } from './fixtures';

type Json = Record<string, any>;

function run(infra: Json = infraJson(), pipeline: Json | undefined = pipelineJson()): Finding[] {
  const stacks: Array<[string, Json]> = [['infra', infra], ...(pipeline ? [['rl-qwen3', pipeline] as [string, Json]] : [])];
  const models = stacks.map(([name, json]) => extractStack(name, asTf(json)));
  return review(models, stacks.map(([stack, json]) => ({ stack, text: JSON.stringify(json, null, 2), json })));
}

function only(findings: Finding[], rule: string): Finding[] {
  return findings.filter((f) => f.rule === rule);
}

test('the example fixtures have no errors or warnings', () => {
  // GIVEN the well-formed infra + pipeline  WHEN reviewed  THEN nothing is flagged
  expect(run().filter((f) => f.severity !== 'note')).toEqual([]);
});

test('0.0.0.0/0 on the control plane is an error naming the cluster', () => {
  const infra = infraJson();
  infra.resource.google_container_cluster.gke.master_authorized_networks_config.cidr_blocks.push({ cidr_block: '0.0.0.0/0', display_name: 'anywhere' });
  const [f] = only(run(infra), 'control-plane-open');
  expect(f).toMatchObject({ severity: 'error', stack: 'infra', address: 'google_container_cluster.gke' });
  expect(f!.message).toMatch(/tpu-post-train: the control-plane allow-list contains 0\.0\.0\.0\/0 \(anywhere\)/);
  expect(f!.fix).toMatch(/DNS-based endpoint/);
});

test('an explicitly opted-in 0.0.0.0/0 (ALLOW_PUBLIC_CONTROL_PLANE) is still reported, as a warning', () => {
  const infra = infraJson();
  infra.resource.google_container_cluster.gke.master_authorized_networks_config.cidr_blocks.push({ cidr_block: '0.0.0.0/0', display_name: 'public-opt-in' });
  const [f] = only(run(infra), 'control-plane-open');
  expect(f).toMatchObject({ severity: 'warning', address: 'google_container_cluster.gke' });
  expect(f!.message).toMatch(/explicitly opted in with ALLOW_PUBLIC_CONTROL_PLANE/);
});

test('a project-level admin or editor role on a service account is an error', () => {
  const infra = infraJson();
  infra.resource.google_project_iam_member['wl-storage'] = {
    project: 'proj',
    role: 'roles/storage.admin',
    member: 'serviceAccount:${google_service_account.wl-sa.email}',
  };
  infra.resource.google_project_iam_member['wl-editor'] = { project: 'proj', role: 'roles/editor', member: 'serviceAccount:x@proj.iam.gserviceaccount.com' };
  const found = only(run(infra), 'sa-project-admin');
  expect(found.map((f) => f.address).sort()).toEqual(['google_project_iam_member.wl-editor', 'google_project_iam_member.wl-storage']);
  expect(found.find((f) => f.address.endsWith('wl-storage'))!.message).toBe(
    'serviceAccount:tpu-post-train-gke-wl-sa@proj.iam.gserviceaccount.com gets roles/storage.admin on the whole project proj (CKV_GCP_42): ' +
      'it can act on every resource of that kind in the project',
  );
});

test('the bucket-level storage.admin grant is not a project admin finding', () => {
  expect(only(run(), 'sa-project-admin')).toEqual([]);
});

test('a node pool without a dedicated service account is an error', () => {
  const infra = infraJson();
  delete infra.resource.google_container_node_pool.cpu.node_config.service_account;
  infra.resource.google_container_node_pool['tpu-8'].node_config.service_account = '123-compute@developer.gserviceaccount.com';
  const found = only(run(infra), 'node-pool-default-sa');
  expect(found.map((f) => f.address).sort()).toEqual(['google_container_node_pool.cpu', 'google_container_node_pool.tpu-8']);
  expect(found[0]!.message).toMatch(/has no dedicated service account/);
});

test('a TPU pool that autoscales is an error for a multi-host slice', () => {
  const infra = infraJson();
  infra.resource.google_container_node_pool['tpu-32'].autoscaling = { min_node_count: 0, max_node_count: 8 };
  const [f] = only(run(infra), 'tpu-pool-autoscales');
  expect(f).toMatchObject({ severity: 'error', address: 'google_container_node_pool.tpu-32' });
  expect(f!.message).toMatch(/TPU pool tpu-v6e-32-0 \(4x8, 32 chips, 8 hosts\) autoscales: a multi-host slice is atomic/);
  expect(f!.fix).toBe('remove autoscaling and set node_count = 8');
});

test('a flex-start slice scaling 0 -> all VMs is expected; any other flex-start scaling is an error', () => {
  const infra = infraJson();
  const pool = infra.resource.google_container_node_pool['tpu-32'];
  delete pool.node_count;
  pool.node_config.flex_start = true;
  pool.node_config.reservation_affinity = { consume_reservation_type: 'NO_RESERVATION' };
  pool.autoscaling = { total_min_node_count: 0, total_max_node_count: 8 };
  expect(only(run(infra), 'tpu-pool-autoscales')).toEqual([]);
  pool.autoscaling = { total_min_node_count: 0, total_max_node_count: 4 };
  const [f] = only(run(infra), 'tpu-pool-autoscales');
  expect(f!.fix).toBe('a flex-start slice scales 0 -> 8 (min_node_count = 0, max_node_count = 8)');
});

test('a TPU pool whose node count disagrees with its topology is an error', () => {
  const infra = infraJson();
  infra.resource.google_container_node_pool['tpu-32'].node_count = 4;
  const [f] = only(run(infra), 'tpu-node-count-mismatch');
  expect(f).toMatchObject({ severity: 'error', address: 'google_container_node_pool.tpu-32' });
  expect(f!.message).toBe('TPU pool tpu-v6e-32-0: node_count 4 disagrees with topology 4x8 on ct6e-standard-4t (32 chips = 8 VMs of 4)');
  expect(f!.fix).toBe('set node_count = 8, or change the topology (a new pool)');
});

test('a single-host pool with topology only in its labels is read from the labels', () => {
  const infra = infraJson();
  const pool = infra.resource.google_container_node_pool['tpu-8'];
  pool.node_config.machine_type = 'ct6e-standard-4t';
  pool.node_config.labels = { 'cloud.google.com/gke-tpu-topology': '2x4' };
  pool.node_count = 2;
  const model = extractStack('infra', asTf(infra));
  expect(model.tpuPools.find((p) => p.name === 'tpu-v6e-8-8t-0')!.slice).toMatchObject({ chips: 8, vms: 2 });
});

test('an unsupported topology is an error quoting the TPU table', () => {
  const infra = infraJson();
  infra.resource.google_container_node_pool['tpu-32'].placement_policy.tpu_topology = '3x3';
  const [f] = only(run(infra), 'tpu-slice-unknown');
  expect(f!.message).toMatch(/must be one of 2x2, 2x4, 4x4, 4x8, .* for ct6e-standard-4t, got '3x3'/);
});

test('a reservation pool without a reservation name is an error', () => {
  const infra = infraJson();
  infra.resource.google_container_node_pool['tpu-32'].node_config.reservation_affinity.values = [];
  const [f] = only(run(infra), 'reservation-without-name');
  expect(f).toMatchObject({ severity: 'error', address: 'google_container_node_pool.tpu-32' });
  expect(f!.message).toBe('TPU pool tpu-v6e-32-0 consumes a SPECIFIC_RESERVATION but names no reservation');
});

test('a JobSet with ttlSecondsAfterFinished is an error', () => {
  const pipeline = pipelineJson();
  pipeline.resource.kubernetes_manifest.train.manifest.spec.ttlSecondsAfterFinished = 3600;
  const [f] = only(run(undefined, pipeline), 'jobset-ttl');
  expect(f).toMatchObject({ severity: 'error', stack: 'rl-qwen3', address: 'kubernetes_manifest.train' });
  expect(f!.message).toMatch(/JobSet qwen3-8b-train sets ttlSecondsAfterFinished=3600: .* re-runs on 32 chips/);
});

test('an image with no tag is an error; the latest tag is a warning', () => {
  const pipeline = pipelineJson();
  pipeline.resource.kubernetes_manifest.train.manifest.spec.replicatedJobs[0].template.spec.template.spec.containers[0].image = 'us-docker.pkg.dev/x/maxtext:latest';
  pipeline.resource.kubernetes_manifest['to-hf'].manifest.spec.replicatedJobs[0].template.spec.template.spec.containers[0].image = 'localhost:5000/maxtext';
  const untagged = only(run(undefined, pipeline), 'image-unpinned');
  expect(untagged.map((f) => [f.address, f.severity])).toEqual([['kubernetes_manifest.to-hf', 'error']]);
  expect(untagged[0]!.message).toMatch(/uses localhost:5000\/maxtext \(no tag\)/);
  const latest = only(run(undefined, pipeline), 'image-latest');
  expect(latest.map((f) => [f.address, f.severity])).toEqual([['kubernetes_manifest.train', 'warning']]);
  expect(latest[0]!.message).toMatch(/uses us-docker.pkg.dev\/x\/maxtext:latest \(the latest tag\)/);
});

test('a digest-pinned image is fine', () => {
  const pipeline = pipelineJson();
  pipeline.resource.kubernetes_manifest.train.manifest.spec.replicatedJobs[0].template.spec.template.spec.containers[0].image = 'gcr.io/x/maxtext@sha256:abcdef';
  expect(only(run(undefined, pipeline), 'image-unpinned')).toEqual([]);
  expect(only(run(undefined, pipeline), 'image-latest')).toEqual([]);
});

test('a Hugging Face token in the synthesized output is an error, redacted', () => {
  const pipeline = pipelineJson();
  const token = 'hf_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6';
  pipeline.resource.kubernetes_manifest.train.manifest.spec.replicatedJobs[0].template.spec.template.spec.containers[0].env = [{ name: 'HF_TOKEN', value: token }];
  const [f] = only(run(undefined, pipeline), 'secret-in-output');
  expect(f).toMatchObject({ severity: 'error', stack: 'rl-qwen3', address: 'kubernetes_manifest.train' });
  expect(f!.message).toMatch(/a Hugging Face token \(redacted\)/);
  expect(f!.message).not.toContain(token);
});

test('a private key in the synthesized output is an error', () => {
  const json = { resource: { google_service_account_key: { k: { private_key: '-----BEGIN RSA PRIVATE KEY-----\nMIIE...' } } } };
  const [f] = secretFindings('infra', JSON.stringify(json), json);
  expect(f).toMatchObject({ severity: 'error', address: 'google_service_account_key.k' });
  expect(f!.message).toMatch(/a private key/);
});

test('a secret version with its payload in Terraform is an error', () => {
  const infra = infraJson();
  infra.resource.google_secret_manager_secret_version = { v: { secret: '${google_secret_manager_secret.hf.id}', secret_data: '${var.hf_token}' } };
  const [f] = only(run(infra), 'secret-version-payload');
  expect(f).toMatchObject({ address: 'google_secret_manager_secret_version.v' });
});

test('Kueue quota below what a pipeline step requests is an error', () => {
  const infra = infraJson();
  const values = JSON.parse(infra.resource.helm_release.queues.values[0]);
  values.objects[0].spec.resourceGroups[0].flavors[0].resources[0].nominalQuota = 16;
  infra.resource.helm_release.queues.values = [JSON.stringify(values)];
  const found = [...only(run(infra), 'kueue-quota-never-admits'), ...only(run(infra), 'kueue-quota-below-pools')];
  const step = found.find((f) => f.address === 'kubernetes_manifest.train')!;
  expect(step.severity).toBe('error');
  expect(step.message).toBe(
    'JobSet qwen3-8b-train requests 32 TPU chips but the Kueue ClusterQueue quota (helm_release.queues) is 16: it is never admitted',
  );
  expect(found.find((f) => f.address === 'helm_release.queues')!.message).toMatch(/quota 16 is below the 40 chips of the TPU pools/);
});

test('a pipeline whose slice does not exist in infra is an error', () => {
  const pipeline = pipelineJson();
  pipeline.resource.kubernetes_manifest.train.manifest.spec.replicatedJobs[0].template.spec.template.spec.nodeSelector['cloud.google.com/gke-tpu-topology'] = '8x8';
  const [f] = only(run(undefined, pipeline), 'pipeline-slice-missing');
  expect(f).toMatchObject({ severity: 'error', stack: 'rl-qwen3', address: 'kubernetes_manifest.train' });
  expect(f!.message).toMatch(/selects a 8x8 slice with 4 chips per pod, which no TPU pool in infra provides \(infra has: tpu-v6e-32-0 \(4x8, 4 chips\/VM\), tpu-v6e-8-8t-0 \(2x4, 8 chips\/VM\)\)/);
});

test('a pipeline selecting a node pool infra lacks is an error', () => {
  const pipeline = pipelineJson();
  pipeline.resource.kubernetes_manifest['to-hf'].manifest.spec.replicatedJobs[0].template.spec.template.spec.nodeSelector['cloud.google.com/gke-nodepool'] = 'big-cpu';
  const [f] = only(run(undefined, pipeline), 'pipeline-pool-missing');
  expect(f).toMatchObject({ address: 'kubernetes_manifest.to-hf' });
  expect(f!.message).toBe('JobSet qwen3-8b-to-hf selects node pool big-cpu, which infra does not have');
});

test('allUsers anywhere is a public-access error', () => {
  const infra = infraJson();
  infra.resource.google_storage_bucket_iam_member.public = { bucket: 'proj-post-training', role: 'roles/storage.objectViewer', member: 'allUsers' };
  const [f] = only(run(infra), 'public-iam');
  expect(f).toMatchObject({ severity: 'error', address: 'google_storage_bucket_iam_member.public' });
});

test('a cluster without an allow-list is a warning; legacy ABAC is an error', () => {
  const infra = infraJson();
  delete infra.resource.google_container_cluster.gke.master_authorized_networks_config;
  infra.resource.google_container_cluster.gke.enable_legacy_abac = true;
  const findings = run(infra);
  expect(only(findings, 'control-plane-no-allowlist')[0]!.severity).toBe('warning');
  expect(only(findings, 'legacy-abac')[0]!.severity).toBe('error');
});

test('errors sort before warnings and notes', () => {
  const infra = infraJson();
  infra.resource.google_storage_bucket.bucket.public_access_prevention = 'inherited';
  infra.resource.google_container_node_pool['tpu-32'].node_count = 4;
  const severities = run(infra).map((f) => f.severity);
  expect(severities).toEqual([...severities].sort((a, b) => ['error', 'warning', 'note'].indexOf(a) - ['error', 'warning', 'note'].indexOf(b)));
});

test('a TPU pool of another generation (v5p) is read as a slice of the TPU table', () => {
  const infra = infraJson();
  const pool = infra.resource.google_container_node_pool['tpu-32'];
  pool.node_config.machine_type = 'ct5p-hightpu-4t';
  pool.placement_policy.tpu_topology = '2x2x2';
  pool.node_count = 2;
  const model = extractStack('infra', infra);
  expect(model.tpuPools.find((p) => p.machineType === 'ct5p-hightpu-4t')!.slice).toMatchObject({ acceleratorType: 'v5p-16', chips: 8, vms: 2 });
});

test('a stack that still lists example placeholders is a warning: its plan fails at the preflight guard', () => {
  const infra = infraJson();
  const model = extractStack('infra', { ...infra, locals: { preflight_placeholders: ["project 'my-tpu-project' (set PROJECT)"] } });
  const found = review([model]).filter((x) => x.rule === 'placeholders');
  expect(found).toEqual([
    expect.objectContaining({ severity: 'warning', address: 'local.preflight_placeholders', message: expect.stringContaining("project 'my-tpu-project' (set PROJECT)") }),
  ]);
  expect(review([extractStack('infra', { ...infra, locals: { preflight_placeholders: [] } })]).filter((x) => x.rule === 'placeholders')).toEqual([]);
});

test('a secret version data source that reads the payload is an error; fetch_secret_data = false is fine', () => {
  const json = pipelineJson();
  const reading = { ...json, data: { ...(json.data ?? {}), google_secret_manager_secret_version: { tok: { secret: 'hf-token' } } } };
  expect(review([extractStack('p', reading)]).filter((x) => x.rule === 'secret-read-into-state').map((x) => x.address)).toEqual([
    'data.google_secret_manager_secret_version.tok',
  ]);
  const metadata = { ...json, data: { ...(json.data ?? {}), google_secret_manager_secret_version: { tok: { secret: 'hf-token', fetch_secret_data: false } } } };
  expect(review([extractStack('p', metadata)]).filter((x) => x.rule === 'secret-read-into-state')).toEqual([]);
});
