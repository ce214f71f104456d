/**
 * Resolves an image tag to its manifest digest through the OCI distribution API (opencontainers/distribution-spec
 * v1.1.0 spec.md "Pulling manifests", "Checking if content exists in the registry"; the token flow of
 * distribution/distribution docs/spec/auth/token.md):
 *   1. `HEAD /v2/<name>/manifests/<tag>` with `Accept:` the index and manifest types; the digest is the
 *      `Docker-Content-Digest` header (for a multi-platform image the index's: the one to pin);
 *   2. a registry that omits the header: `GET` the same URL and sha256 the exact body bytes;
 *   3. `401` with `WWW-Authenticate: Bearer realm="...",service="...",scope="..."`: `GET <realm>?service=&scope=` for
 *      `{"token"}` or `{"access_token"}` (anonymous, or with basic `oauth2accesstoken:<gcloud token>` for Artifact
 *      Registry, `<loc>-docker.pkg.dev`), then the request again with `Authorization: Bearer`;
 *   4. redirects are followed (registry.k8s.io answers with redirects to regional backends);
 *   5. `429` (Docker Hub's anonymous pull limit) waits `Retry-After` seconds, else 2, 4, 8, and says so.
 * Node's own fetch, not `@snyk/docker-registry-v2-client` 4.0.5: that client builds every URL as
 * `https://${registryBase}/v2...` (dist/registry-call.js), so no mirror or loopback registry over http can be named;
 * its getManifest GETs (never HEADs) and descends into the linux/amd64 manifest of an index (getManifestDigestByPlatform),
 * whereas the index digest is what a multi-platform image is pinned by; and it brings needle, psl, tslib and
 * parse-link-header for what is here about 150 lines. Docker Hub official images are `library/<name>`; a reference
 * without a host is Docker Hub's (`registry-1.docker.io`).
 */
import { createHash } from 'crypto';
import { parseImageReference } from '../jobs/image-ref';

/** The manifest types asked for, index types first (distribution-spec; Docker's manifest list and v2). */
export const MANIFEST_ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export interface RegistryClientOptions {
  /** Registry host -> base URL (REGISTRY_ENDPOINTS): `{"registry-1.docker.io": "http://127.0.0.1:5000"}`. @default - https://<host> */
  readonly endpoints?: Readonly<Record<string, string>>;
  /** The user's Google access token (`gcloud auth print-access-token`), asked for an Artifact Registry host. @default - none */
  readonly googleToken?: () => Promise<string | undefined>;
  /** Milliseconds a request may take. @default 30000 */
  readonly timeoutMs?: number;
  /** Attempts after a 429. @default 3 */
  readonly retries?: number;
  /** Waits (tests pass one that does not). @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Progress lines (a 429's wait). @default - none */
  readonly log?: (line: string) => void;
}

export type ImageResolution = { readonly digest: string; readonly source: string } | { readonly problem: string };

/** Where an image is asked for: the registry host, the repository name, the tag and the base URL. */
export function registryCoordinates(ref: string, endpoints: Readonly<Record<string, string>> = {}): { host: string; name: string; tag: string; base: string } | undefined {
  const parsed = parseImageReference(ref);
  if (!parsed || parsed.tag === undefined) return undefined;
  const hub = parsed.registry === undefined || parsed.registry === 'docker.io' || parsed.registry === 'index.docker.io';
  const host = hub ? 'registry-1.docker.io' : parsed.registry!;
  const name = hub && !parsed.path.includes('/') ? `library/${parsed.path}` : parsed.path;
  const base = (endpoints[host] ?? `https://${host}`).replace(/\/+$/, '');
  return { host, name, tag: parsed.tag, base };
}

/** The parameters of a `Bearer` challenge (`realm`, `service`, `scope`), or undefined. */
export function bearerChallenge(header: string | null): Record<string, string> | undefined {
  if (!header || !/^\s*bearer\s/i.test(header)) return undefined;
  const out: Record<string, string> = {};
  for (const m of header.replace(/^\s*bearer\s+/i, '').matchAll(/([a-zA-Z_]+)\s*=\s*(?:"([^"]*)"|([^,\s]*))/g)) out[m[1]!.toLowerCase()] = m[2] ?? m[3] ?? '';
  return out.realm ? out : undefined;
}

const isArtifactRegistry = (host: string) => /^[a-z0-9-]+-docker\.pkg\.dev$/.test(host);

class Failure extends Error {}

/** One request with the deadline; a timeout or refused connection becomes a Failure naming the host. */
async function request(url: string, init: RequestInit, what: string, timeoutMs: number): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const why = e.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : (e.cause?.code ?? e.cause?.message ?? e.message);
    throw new Failure(`${what}: ${new URL(url).host} did not answer (${why}); check the network, or point REGISTRY_ENDPOINTS at a mirror`);
  }
}

/** A request, waiting after each 429 (Retry-After, else 2, 4, 8 s) up to `retries` times. */
async function withBackoff(send: () => Promise<Response>, what: string, o: Required<Pick<RegistryClientOptions, 'retries' | 'sleep' | 'log'>>): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const res = await send();
    if (res.status !== 429) return res;
    if (attempt >= o.retries) {
      throw new Failure(`${what}: rate limited (429) ${attempt + 1} times; Docker Hub limits anonymous pulls: wait, run again later, or point REGISTRY_ENDPOINTS at a mirror`);
    }
    const after = Number(res.headers.get('retry-after'));
    const seconds = Number.isFinite(after) && after > 0 ? Math.min(after, 60) : 2 ** (attempt + 1);
    o.log(`${what}: rate limited (429); waiting ${seconds} s (attempt ${attempt + 2} of ${o.retries + 1})`);
    await o.sleep(seconds * 1000);
  }
}

/** The bearer token a challenge gives (anonymous, or basic auth with the Google token for Artifact Registry). */
async function bearerToken(challenge: Record<string, string>, host: string, what: string, o: RegistryClientOptions & { timeoutMs: number }): Promise<string> {
  const url = new URL(challenge.realm!);
  if (challenge.service) url.searchParams.set('service', challenge.service);
  if (challenge.scope) url.searchParams.set('scope', challenge.scope);
  const headers: Record<string, string> = {};
  // Artifact Registry: the user's token when gcloud gives one; else anonymous (a public repository answers that too).
  const google = isArtifactRegistry(host) ? await o.googleToken?.() : undefined;
  if (google) headers.authorization = `Basic ${Buffer.from(`oauth2accesstoken:${google}`).toString('base64')}`;
  const res = await request(url.toString(), { headers }, what, o.timeoutMs);
  if (!res.ok) {
    const hint = !isArtifactRegistry(host)
      ? 'the repository may be private or misspelled'
      : google
        ? 'run `gcloud auth login` with an account that may read the repository'
        : '`gcloud auth print-access-token` gave no token and anonymous access is refused: run `gcloud auth login`';
    throw new Failure(`${what}: the token service ${url.host} answered ${res.status} ${res.statusText}; ${hint}`);
  }
  const body = (await res.json().catch(() => ({}))) as { token?: unknown; access_token?: unknown };
  const token = typeof body.token === 'string' ? body.token : typeof body.access_token === 'string' ? body.access_token : undefined;
  if (!token) throw new Failure(`${what}: the token service ${url.host} answered without a token`);
  return token;
}

/** Why a manifest answer is not a digest, naming what to do. */
function statusProblem(res: Response, what: string, host: string): string {
  if (res.status === 404) return `${what}: ${host} answered 404 (no such tag or repository); check the tag exists (\`skopeo list-tags docker://<repository>\`, \`gcloud artifacts docker tags list\`) and fix the image in the config`;
  if (res.status === 401 || res.status === 403) {
    return `${what}: ${host} answered ${res.status}${isArtifactRegistry(host) ? '; run `gcloud auth login` with an account that may read the repository' : ': the image is private or misspelled'}`;
  }
  return `${what}: ${host} answered ${res.status} ${res.statusText}`;
}

/** Resolves `ref` (a tag reference) to its manifest digest, or says why not. Never throws. */
export async function resolveImage(ref: string, options: RegistryClientOptions = {}): Promise<ImageResolution> {
  const o = { timeoutMs: 30_000, retries: 3, sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)), log: () => undefined, ...options };
  const at = registryCoordinates(ref, o.endpoints);
  if (!at) return { problem: `${ref}: not an image reference with a tag` };
  const what = `image ${ref}`;
  const url = `${at.base}/v2/${at.name}/manifests/${encodeURIComponent(at.tag)}`;
  try {
    let auth: string | undefined;
    const send = (method: 'HEAD' | 'GET') => () =>
      request(url, { method, headers: { accept: MANIFEST_ACCEPT, ...(auth ? { authorization: auth } : {}) } }, what, o.timeoutMs);
    let res = await withBackoff(send('HEAD'), what, o);
    if (res.status === 401) {
      const challenge = bearerChallenge(res.headers.get('www-authenticate'));
      if (!challenge) return { problem: statusProblem(res, what, at.host) };
      auth = `Bearer ${await bearerToken(challenge, at.host, what, o)}`;
      res = await withBackoff(send('HEAD'), what, o);
    }
    if (!res.ok) return { problem: statusProblem(res, what, at.host) };
    const header = res.headers.get('docker-content-digest');
    if (header && DIGEST.test(header)) return { digest: header, source: `HEAD ${at.host}/v2/${at.name}/manifests/${at.tag}: Docker-Content-Digest` };
    const got = await withBackoff(send('GET'), what, o);
    if (!got.ok) return { problem: statusProblem(got, what, at.host) };
    const digest = `sha256:${createHash('sha256').update(Buffer.from(await got.arrayBuffer())).digest('hex')}`;
    const claimed = got.headers.get('docker-content-digest');
    if (claimed && claimed !== digest) return { problem: `${what}: ${at.host} says ${claimed} but its manifest's bytes hash to ${digest}; not locked` };
    return { digest, source: `GET ${at.host}/v2/${at.name}/manifests/${at.tag}: sha256 of the manifest bytes (no Docker-Content-Digest on HEAD)` };
  } catch (err) {
    if (err instanceof Failure) return { problem: err.message };
    return { problem: `${what}: ${(err as Error).message}` };
  }
}
