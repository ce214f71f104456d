/** Values shared by the tutorial recipes (each is a tutorial value, named once). */

/** Google's prebuilt MaxText post-training images, tagged with the MaxText version they install. */
export const POST_TRAINING_IMAGE_REPO = 'us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training';

/** `CLOUD_IMAGE_NAME` of tutorials 000, 001 and 003. */
export const TUTORIAL_IMAGE = `${POST_TRAINING_IMAGE_REPO}:0.2.4`;

/** The MaxText version a prebuilt post-training image installs (its tag), or undefined for any other image. */
export function imageMaxTextVersion(image: string): string | undefined {
  const prefix = `${POST_TRAINING_IMAGE_REPO}:`;
  // A locked image (`<tag>@sha256:...`, jobs/lock.ts) installs the MaxText of its tag.
  const tag = image.startsWith(prefix) ? image.slice(prefix.length).replace(/@sha256:[0-9a-f]{64}$/, '') : '';
  return /^\d+\.\d+\.\d+$/.test(tag) ? tag : undefined;
}

/** `--env` / `--pathways-{proxy,server,worker}-env` pairs tutorials 000 and 001 pass to every Pathways container. */
export const PATHWAYS_TUTORIAL_ENV = {
  GRPC_DNS_RESOLVER: 'native',
  FLAGS_pathways_enforce_subset_devices_form_subslice: 'false',
} as const;

/** `vllm_hf_overrides` of the RL tutorials: run the MaxText model inside vLLM. */
export const MAXTEXT_FOR_CAUSAL_LM = { architectures: ['MaxTextForCausalLM'] } as const;

/**
 * Conversion defaults the tutorials leave to `gcluster job submit`: `--restarts 1`, and how long one attempt may run.
 * (The RL tutorials pass `--restarts=0` for training; here training restarts by capacity type, jobs/capacity.ts.)
 */
export const CONVERSION_MAX_RESTARTS = 1;
export const CONVERSION_TIMEOUT_MINUTES = 120;
