/**
 * Files from the user's repository that the training pods read (a reward function file): one ConfigMap per pipeline,
 * mounted read-only into the training container, so a custom reward needs no custom image. Pure; no cdktf.
 */
import { RecipeFile } from './recipes/types';

/** Where the training container finds the files (`reward_functions_path=<dir>/<name>`). */
export const RECIPE_FILES_DIR = '/etc/tpu-post-training/files';
/** Pod volume name of the files. */
export const RECIPE_FILES_VOLUME = 'pipeline-files';
/**
 * The most a ConfigMap may hold, keys and values together: 1 MiB (kubernetes/kubernetes
 * pkg/apis/core/validation/validation.go ValidateConfigMap: `totalSize > core.MaxSecretSize`, MaxSecretSize = 1 MiB).
 */
export const CONFIGMAP_MAX_BYTES = 1024 * 1024;
/** A ConfigMap data key (ValidateConfigMap: IsConfigMapKey, `[-._a-zA-Z0-9]+`, at most 253 characters). */
export const CONFIGMAP_KEY = /^[-._a-zA-Z0-9]{1,253}$/;

/** The ConfigMap's name: `<pipeline>-files`. */
export function filesConfigMapName(pipeline: string): string {
  return `${pipeline}-files`;
}

/** The bytes a ConfigMap of these files holds (keys plus UTF-8 values, as ValidateConfigMap counts). */
export function configMapBytes(files: ReadonlyArray<Pick<RecipeFile, 'name' | 'content'>>): number {
  return files.reduce((n, f) => n + Buffer.byteLength(f.name, 'utf8') + Buffer.byteLength(f.content, 'utf8'), 0);
}

/**
 * The ConfigMap manifest holding the files, each under `binaryData` as the base64 of its exact bytes (the UTF-8 of its
 * text, a leading BOM kept), so the file a pod reads is byte for byte the file whose sha256 the run records, whatever
 * it contains. Not `data`, because the text would pass through two template languages on its way to the cluster:
 * - cdktf replaces any `${TfToken[TOKEN.<n>]}` in a string by the token it names (measured with cdktf 0.21: `$` +
 *   `${TfToken[TOKEN.0]}` synthesized as `$${var.v}`; an unknown number fails the synthesis), before and after escaping;
 * - Terraform reads every string of the JSON configuration as a template: `${x}` is interpolated (an unknown name
 *   fails the plan) and `%{ if true }x%{ endif }` is silently rewritten to `x` (Terraform "String Templates").
 * The base64 alphabet (`A-Z a-z 0-9 + / =`) holds neither `${`, `%{` nor a token marker, so no escaping rule has to be
 * right. Kubernetes counts the decoded bytes against the 1 MiB limit (ValidateConfigMap: `len(value)` of each
 * `BinaryData` value) and the kubelet writes them unchanged into the mounted file.
 * (__tests__/config/reward-file.test.ts: Terraform 1.11.4 reads the synthesized value back and its sha256 is the file's.)
 */
export function buildFilesConfigMap(
  pipeline: string,
  namespace: string,
  labels: Readonly<Record<string, string>>,
  files: readonly RecipeFile[],
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: filesConfigMapName(pipeline), namespace, labels: { ...labels } },
    binaryData: Object.fromEntries(files.map((f) => [f.name, fileBase64(f)])),
  };
}

/** The base64 of a file's bytes: the UTF-8 of its text (config/ decodes it keeping a BOM, so this is the file). */
export function fileBase64(file: Pick<RecipeFile, 'content'>): string {
  return Buffer.from(file.content, 'utf8').toString('base64');
}

/** The pod volume and the read-only container mount of the files. */
export function filesVolume(pipeline: string): { volume: Record<string, unknown>; mount: Record<string, unknown> } {
  return {
    volume: { name: RECIPE_FILES_VOLUME, configMap: { name: filesConfigMapName(pipeline) } },
    mount: { name: RECIPE_FILES_VOLUME, mountPath: RECIPE_FILES_DIR, readOnly: true },
  };
}
