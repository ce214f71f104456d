/**
 * Hand-made Terraform JSON in the shape cdktf synthesizes (snake_case attributes, single blocks as objects,
 * `${type.name.attr}` references), for the review's rule tests. Each call returns a fresh copy to mutate.
 */
import type { TerraformJson } from '../../review/load';

type Json = Record<string, any>;

const NODE_SA = '${google_service_account.node-sa.email}';

function tpuPoolAttrs(name: string, machineType: string, nodeCount: number, topology?: string): Json {
  return {
    cluster: '${google_container_cluster.gke.id}',
    name,
    node_count: nodeCount,
    node_locations: ['us-east5-b'],
    ...(topology ? { placement_policy: { type: 'COMPACT', tpu_topology: topology } } : {}),
    node_config: {
      machine_type: machineType,
      service_account: NODE_SA,
      oauth_scopes: ['https://www.googleapis.com/auth/cloud-platform'],
      reservation_affinity: {
        consume_reservation_type: 'SPECIFIC_RESERVATION',
        key: 'compute.googleapis.com/reservation-name',
        values: [`${name}-reservation`],
      },
    },
  };
}

/** The infra stack: cluster, a 4x8 slice, a single-host 8t slice, CPU pool, identity, bucket, secret, Kueue. */
export function infraJson(): Json {
  return {
    provider: { google: [{ project: 'proj', region: 'us-east5' }] },
    terraform: { backend: { local: { path: 'terraform.infra.tfstate' } } },
    resource: {
      google_container_cluster: {
        gke: {
          '//': { metadata: { path: 'infra/gke/cluster' } },
          name: 'tpu-post-train',
          location: 'us-east5',
          remove_default_node_pool: true,
          initial_node_count: 1,
          deletion_protection: true,
          master_authorized_networks_config: {
            cidr_blocks: [{ cidr_block: '203.0.113.0/24', display_name: 'office' }],
            gcp_public_cidrs_access_enabled: false,
          },
          private_cluster_config: { enable_private_nodes: true, enable_private_endpoint: false, master_ipv4_cidr_block: '172.16.0.32/28' },
          control_plane_endpoints_config: { dns_endpoint_config: { allow_external_traffic: false } },
        },
      },
      google_container_node_pool: {
        'tpu-32': tpuPoolAttrs('tpu-v6e-32-0', 'ct6e-standard-4t', 8, '4x8'),
        'tpu-8': tpuPoolAttrs('tpu-v6e-8-8t-0', 'ct6e-standard-8t', 1),
        cpu: {
          cluster: '${google_container_cluster.gke.id}',
          name: 'cpu-np',
          autoscaling: { total_min_node_count: 0, total_max_node_count: 4 },
          node_config: { machine_type: 'n4-highmem-64', service_account: NODE_SA },
        },
      },
      google_service_account: {
        'node-sa': { account_id: 'tpu-post-train-gke-np-sa', display_name: 'nodes' },
        'wl-sa': { account_id: 'tpu-post-train-gke-wl-sa', display_name: 'workloads' },
      },
      google_project_iam_member: {
        'node-logging': { project: 'proj', role: 'roles/logging.logWriter', member: 'serviceAccount:${google_service_account.node-sa.email}' },
      },
      google_storage_bucket: {
        bucket: { name: 'proj-post-training', location: 'US-EAST5', uniform_bucket_level_access: true, public_access_prevention: 'enforced' },
      },
      google_storage_bucket_iam_member: {
        writer: { bucket: '${google_storage_bucket.bucket.name}', role: 'roles/storage.admin', member: 'serviceAccount:${google_service_account.wl-sa.email}' },
      },
      google_secret_manager_secret: { hf: { secret_id: 'hf-token', replication: { auto: {} } } },
      google_secret_manager_secret_iam_member: {
        reader: { secret_id: '${google_secret_manager_secret.hf.id}', role: 'roles/secretmanager.secretAccessor', member: 'serviceAccount:${google_service_account.wl-sa.email}' },
      },
      google_service_account_iam_member: {
        wi: {
          service_account_id: '${google_service_account.wl-sa.name}',
          role: 'roles/iam.workloadIdentityUser',
          member: 'serviceAccount:proj.svc.id.goog[default/workload-identity-k8s-sa]',
        },
      },
      helm_release: {
        jobset: { name: 'jobset', repository: 'oci://registry.k8s.io/jobset/charts', chart: 'jobset', version: '0.10.1' },
        queues: {
          name: 'kueue-queues',
          chart: './assets/queues-chart/ABC',
          values: [
            JSON.stringify({
              objects: [
                {
                  apiVersion: 'kueue.x-k8s.io/v1beta2',
                  kind: 'ClusterQueue',
                  metadata: { name: 'cluster-queue' },
                  spec: {
                    resourceGroups: [
                      {
                        coveredResources: ['google.com/tpu', 'cpu', 'memory'],
                        flavors: [{ name: 'flavor-tpu-v6e-slice', resources: [{ name: 'google.com/tpu', nominalQuota: 40 }, { name: 'cpu', nominalQuota: 1440 }] }],
                      },
                    ],
                  },
                },
              ],
            }),
          ],
        },
      },
    },
  };
}

function container(name: string, image: string, args: string[], tpu?: number): Json {
  return {
    name,
    image,
    command: ['bash', '-c'],
    args: [args.join(' ')],
    ...(tpu ? { resources: { limits: { 'google.com/tpu': String(tpu) } } } : { resources: { requests: { cpu: '8', memory: '64Gi' } } }),
  };
}

function jobSetResource(name: string, podSpec: Json, opts: { parallelism?: number; dependsOn?: string[]; timeout: string }): Json {
  return {
    manifest: {
      apiVersion: 'jobset.x-k8s.io/v1alpha2',
      kind: 'JobSet',
      metadata: { name, namespace: 'default', labels: { 'kueue.x-k8s.io/queue-name': 'user-queue' } },
      spec: {
        replicatedJobs: [
          { name: 'worker', replicas: 1, template: { spec: { parallelism: opts.parallelism ?? 1, completions: opts.parallelism ?? 1, backoffLimit: 0, template: { spec: podSpec } } } },
        ],
      },
    },
    wait: { condition: [{ type: 'Completed', status: 'True' }] },
    timeouts: { create: opts.timeout },
    ...(opts.dependsOn ? { depends_on: opts.dependsOn } : {}),
  };
}

export const IMAGE = 'us-docker.pkg.dev/cloud-tpu-images/maxtext:2025.10.01';

/** The rl-qwen3 pipeline: to-maxtext (CPU) -> train (4x8, 32 chips, 24h) -> to-hf (CPU). */
export function pipelineJson(): Json {
  const bucket = 'gs://proj-post-training/qwen3-8b';
  return {
    resource: {
      kubernetes_manifest: {
        'to-maxtext': jobSetResource(
          'qwen3-8b-to-maxtext',
          { nodeSelector: { 'cloud.google.com/gke-nodepool': 'cpu-np' }, containers: [container('convert', IMAGE, ['python3 -m maxtext.checkpoint_conversion.to_maxtext', 'model_name=qwen3-8b', `base_output_directory=${bucket}/max-text-format/`])] },
          { timeout: '2h' },
        ),
        train: jobSetResource(
          'qwen3-8b-train',
          {
            nodeSelector: { 'cloud.google.com/gke-tpu-accelerator': 'tpu-v6e-slice', 'cloud.google.com/gke-tpu-topology': '4x8' },
            containers: [container('train', IMAGE, ['python3 -m maxtext.trainers.post_train.rl.train_rl', 'model_name=qwen3-8b', `load_parameters_path=${bucket}/max-text-format/0/items/`, `base_output_directory=${bucket}/trained/`], 4)],
          },
          { parallelism: 8, dependsOn: ['kubernetes_manifest.to-maxtext'], timeout: '24h' },
        ),
        'to-hf': jobSetResource(
          'qwen3-8b-to-hf',
          { nodeSelector: { 'cloud.google.com/gke-nodepool': 'cpu-np' }, containers: [container('export', IMAGE, ['python3 -m maxtext.checkpoint_conversion.to_huggingface', 'model_name=qwen3-8b', `load_parameters_path=${bucket}/trained/rl/checkpoints/actor/50/model_params/`, `base_output_directory=${bucket}/hf-trained/`])] },
          { dependsOn: ['kubernetes_manifest.train'], timeout: '2h' },
        ),
      },
    },
  };
}

export function asTf(json: Json): TerraformJson {
  return json as TerraformJson;
}
