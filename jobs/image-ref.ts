/**
 * Container image references: `registry/path:tag` or `registry/path@sha256:<64 hex>` (or both), as
 * distribution/reference's grammar (`reference.go`) defines them: lowercase path components separated by `/`, an
 * optional registry host (with a dot or a port, or `localhost`), a tag of at most 128 word characters, dots and
 * dashes, a digest `<algorithm>:<hex>`. A reference without a tag or digest would mean `:latest`, which moves under a
 * Terraform-managed JobSet, so it is refused here. Pure; no cdktf.
 */

const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const HOST = '(?:localhost|[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)+)(?::[0-9]+)?|[a-zA-Z0-9-]+:[0-9]+';
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = 'sha256:[a-f0-9]{64}';
const REFERENCE = new RegExp(`^(?:(${HOST})/)?(${COMPONENT}(?:/${COMPONENT})*)(?::(${TAG}))?(?:@(${DIGEST}))?$`);

export interface ImageReference {
  /** @default - Docker Hub (no host) */
  readonly registry?: string;
  readonly path: string;
  /** @default - none (then digest is set) */
  readonly tag?: string;
  /** @default - none (then tag is set) */
  readonly digest?: string;
}

/** Parses an image reference; undefined when it does not parse or names neither a tag nor a digest. */
export function parseImageReference(ref: string): ImageReference | undefined {
  if (ref.length > 1024) return undefined;
  const m = REFERENCE.exec(ref);
  if (!m || (m[3] === undefined && m[4] === undefined)) return undefined;
  return { registry: m[1], path: m[2], tag: m[3], digest: m[4] };
}

/** Why `ref` is not a pinned image reference, or undefined when it is one. */
export function imageReferenceProblem(ref: string): string | undefined {
  if (parseImageReference(ref)) return undefined;
  const shown = ref.length > 80 ? `${ref.slice(0, 80)}...` : ref;
  return `image must be a reference such as us-docker.pkg.dev/<project>/<repo>/<image>:<tag> or <image>@sha256:<64 hex digits>, got '${shown}'`;
}

/** The Artifact Registry coordinates of an image (`<loc>-docker.pkg.dev/<project>/<repo>/<image>`), when it is one. */
export function artifactRegistryImage(
  ref: string,
): { location: string; project: string; repository: string; image: string; tagOrDigest: string } | undefined {
  const parsed = parseImageReference(ref);
  const host = parsed?.registry ? /^([a-z0-9-]+)-docker\.pkg\.dev$/.exec(parsed.registry) : null;
  if (!parsed || !host) return undefined;
  const parts = parsed.path.split('/');
  if (parts.length < 3) return undefined;
  return {
    location: host[1],
    project: parts[0],
    repository: parts[1],
    image: parts.slice(2).join('/'),
    tagOrDigest: parsed.digest ?? parsed.tag!,
  };
}

/** Every distinct `image` of the containers in Kubernetes objects (JobSet manifests), in first-seen order. */
export function imagesIn(objects: readonly unknown[]): string[] {
  const out = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
        if ((key === 'containers' || key === 'initContainers') && Array.isArray(value)) {
          for (const c of value) if (c && typeof (c as { image?: unknown }).image === 'string') out.add((c as { image: string }).image);
        }
        walk(value);
      }
    }
  };
  objects.forEach(walk);
  return [...out];
}
