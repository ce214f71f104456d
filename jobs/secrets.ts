/**
 * The Hugging Face token's way into pods: a `SecretProviderClass` for the GKE Secret Manager add-on and the
 * CSI volume that mounts it as a file. Manifests only reference the secret (project/secret id); the value
 * never passes through config, manifests, Terraform state or plans. Pure; no cdktf.
 *
 * Facts: provider `gke` and driver `secrets-store-gke.csi.k8s.io` are the add-on's (the OSS driver uses
 * `gcp` / `secrets-store.csi.k8s.io`); the class must live in the pod's namespace; the provider reads the
 * secret as the pod's KSA through Workload Identity (see ../shared/reference/gke-secrets-kueue-jobset-charts.md §4).
 */
import type { Platform } from './platform';

export const SECRET_PROVIDER_API_VERSION = 'secrets-store.csi.x-k8s.io/v1';
export const GKE_SECRETS_PROVIDER = 'gke';
export const GKE_SECRETS_CSI_DRIVER = 'secrets-store-gke.csi.k8s.io';

/** Pod volume name and mount point of the token; the file is `HF_TOKEN_FILE`. */
export const HF_TOKEN_VOLUME = 'hf-token';
export const HF_TOKEN_MOUNT_PATH = '/var/run/secrets/hf';
export const HF_TOKEN_FILE_NAME = 'hf-token';
export const HF_TOKEN_FILE = `${HF_TOKEN_MOUNT_PATH}/${HF_TOKEN_FILE_NAME}`;

/** Name of a pipeline's SecretProviderClass: `<pipeline>-hf-token`. */
export function secretProviderClassName(pipeline: string): string {
  return `${pipeline}-hf-token`;
}

/** Secret Manager resource name of the token's latest version. */
export function hfTokenResourceName(platform: Platform): string {
  return `projects/${platform.project}/secrets/${platform.hfTokenSecretId}/versions/latest`;
}

/** The SecretProviderClass of one pipeline (namespace of its pods). */
export function buildSecretProviderClass(
  pipeline: string,
  platform: Platform,
  labels: Readonly<Record<string, string>>,
): Record<string, unknown> {
  return {
    apiVersion: SECRET_PROVIDER_API_VERSION,
    kind: 'SecretProviderClass',
    metadata: { name: secretProviderClassName(pipeline), namespace: platform.namespace, labels: { ...labels } },
    spec: {
      provider: GKE_SECRETS_PROVIDER,
      parameters: {
        // A YAML list in a string, as the driver's API defines `parameters` as map[string]string.
        secrets: `- resourceName: "${hfTokenResourceName(platform)}"\n  path: "${HF_TOKEN_FILE_NAME}"\n`,
      },
    },
  };
}

/** The pod volume that mounts the token file. */
export function hfTokenVolume(pipeline: string): Record<string, unknown> {
  return {
    name: HF_TOKEN_VOLUME,
    csi: {
      driver: GKE_SECRETS_CSI_DRIVER,
      readOnly: true,
      volumeAttributes: { secretProviderClass: secretProviderClassName(pipeline) },
    },
  };
}

/** The container mount of the token volume (read-only). */
export function hfTokenVolumeMount(): Record<string, unknown> {
  return { name: HF_TOKEN_VOLUME, mountPath: HF_TOKEN_MOUNT_PATH, readOnly: true };
}

/** The command that stores the token (jobs/platform.ts: the platform names it; its home is there, so platform imports no manifest). */
export { secretCommand } from './platform';
