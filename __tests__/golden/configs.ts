/**
 * The configurations whose synthesized Terraform is pinned byte for byte (__tests__/golden/fixtures/<name>/): the
 * example, each tutorial's exact exports (seeds/000-003), two slices, spot, flex-start, other TPU generations, and
 * the optional features, and serve stacks. A refactor keeps every file identical; a commit that changes behaviour on purpose
 * re-records them (UPDATE_GOLDEN=1 npx jest __tests__/golden) and says so in its message.
 */
const IMAGE = 'us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.4';
/** Real-looking values: no placeholder, so nothing is a guard-only config. */
const REAL = { PROJECT: 'acme-tpu-prod', GCS_BUCKET: 'acme-post-train-ckpt', AUTHORIZED_CIDR: '198.18.0.0/15' };
/** The v6e-32 tutorials' common exports (seeds/000, 001, 003). */
const V6E_32_TUTORIAL = { PROJECT: 'acme-tpu-prod', REGION: 'us-east5', ZONE: 'us-east5-a', CLUSTER_NAME: 'post-train', GCS_BUCKET: 'acme-post-train-ckpt', CLOUD_IMAGE_NAME: IMAGE, RESERVATION: 'acme-v6e-32', HF_TOKEN: 'x', CLUSTER_TOOLKIT_VERSION: 'v1.103.0' };

export const GOLDEN_CONFIGS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'example': { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' },
  'example-plain': {},
  'tutorial-000': { ...V6E_32_TUTORIAL, COMPUTE_TYPE: 'ct6e-standard-4t', TOPOLOGY: '4x8', CLUSTER_NODEPOOL_COUNT: '1', MODEL_NAME: 'qwen3-30b-a3b' },
  'tutorial-001': { ...V6E_32_TUTORIAL, COMPUTE_TYPE: 'ct6e-standard-4t', TPU_TYPE: 'v6e-32', TOPOLOGY: '4x8', CLUSTER_NODEPOOL_COUNT: '1', MODEL_NAME: 'gemma4-26b' },
  'tutorial-002': { PROJECT: 'acme-tpu-prod', ZONE: 'us-central2-b', RESERVATION: 'acme-v6e-8', TPU_NAME: 'my-tpu-vm' },
  'tutorial-003': { ...V6E_32_TUTORIAL, TPU_TYPE: 'v6e-32', MODEL_NAME: 'gemma4-31b' },
  'two-slices': { ...REAL, RESERVATION: 'acme-v6e-32', SINGLE_HOST_RESERVATION: 'acme-v6e-8', CLUSTER_NODEPOOL_COUNT: '2' },
  'spot': { ...REAL, TPU_CAPACITY: 'spot', SINGLE_HOST_CAPACITY: 'spot' },
  'flex-start': { ...REAL, TPU_CAPACITY: 'flex-start', SINGLE_HOST_CAPACITY: 'flex-start' },
  'v5p': { ...REAL, COMPUTE_TYPE: 'ct5p-hightpu-4t', TOPOLOGY: '2x2x2', RESERVATION: 'acme-v5p-16', PIPELINES: 'none' },
  'tpu7x': { ...REAL, COMPUTE_TYPE: 'tpu7x-standard-4t', TOPOLOGY: '2x2x4', RESERVATION: 'acme-tpu7x', PIPELINES: 'none' },
  // Serve stacks (issue 38 item 6): a Qwen3 MoE on the torchax path, a Gemma 4 served as Gemma4ForCausalLM, one on reservation.
  'serve': { ...REAL, RESERVATION: 'acme-v6e-32', SINGLE_HOST_RESERVATION: 'acme-v6e-8', PIPELINES: 'rl-qwen3,sft-gemma4', SERVE: 'rl-qwen3,sft-gemma4' },
  'features': {
    ...REAL, RESERVATION: 'acme-v6e-32', SINGLE_HOST_RESERVATION: 'acme-v6e-8', DNS_ENDPOINT: 'true', STATE_BUCKET: 'acme-tf-state',
    NOTIFY_EMAIL: 'ml-oncall@acme.example,lead@acme.example', BUCKET_ACCESS: 'objects', RUN_ID: 'r2',
  },
};
