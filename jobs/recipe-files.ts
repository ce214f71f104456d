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

/** The ConfigMap manifest holding the files. */
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
    data: Object.fromEntries(files.map((f) => [f.name, f.content])),
  };
}

/** The pod volume and the read-only container mount of the files. */
export function filesVolume(pipeline: string): { volume: Record<string, unknown>; mount: Record<string, unknown> } {
  return {
    volume: { name: RECIPE_FILES_VOLUME, configMap: { name: filesConfigMapName(pipeline) } },
    mount: { name: RECIPE_FILES_VOLUME, mountPath: RECIPE_FILES_DIR, readOnly: true },
  };
}
