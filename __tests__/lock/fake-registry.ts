/**
 * A loopback container registry speaking what the OCI distribution spec (opencontainers/distribution-spec v1.1.0
 * spec.md) and the token auth of distribution/distribution (docs/spec/auth/token.md) say a client meets:
 *   - `GET /v2/` (the ping skopeo sends first) and every `/v2/<name>/...` answer `401` with
 *     `WWW-Authenticate: Bearer realm="<base>/token",service="fake-registry",scope="repository:<name>:pull"` until a
 *     request carries `Authorization: Bearer <token>`; `GET /token?service=&scope=` answers `{"token", "access_token"}`
 *     (with `basic` set, only to `Authorization: Basic base64(oauth2accesstoken:<basic>)`, as Artifact Registry);
 *   - `HEAD|GET /v2/<name>/manifests/<tag|digest>`: `Content-Type` the manifest's media type, `Docker-Content-Digest`
 *     (left off on HEAD for a repository in `noDigestOnHead`), the exact bytes on GET; `404` with
 *     `{"errors":[{"code":"MANIFEST_UNKNOWN"}]}` for an unknown one; `GET /v2/<name>/blobs/<digest>` the config blob;
 *   - `GET /v2/<name>/tags/list` -> `{name, tags}` (skopeo inspect lists them);
 *   - `ratelimited/*`: `429` with `Retry-After: 1` the first `rateLimitTimes` requests; `slow/*`: never answers.
 * Manifests: an OCI index of two platforms (`multi/app:v1`) and a single-platform Docker v2 manifest (`single/app:v1`
 * and Docker Hub's `library/tool:v1`), with their config blobs.
 */
import { createHash } from 'crypto';
import * as http from 'http';
import type { AddressInfo } from 'net';

export const sha256 = (bytes: Buffer | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', config: { Env: ['PATH=/usr/bin'] }, rootfs: { type: 'layers', diff_ids: [] }, history: [] }));
const layer = Buffer.from('layer');
const single = Buffer.from(
  JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
    config: { mediaType: 'application/vnd.docker.container.image.v1+json', size: config.length, digest: sha256(config) },
    layers: [{ mediaType: 'application/vnd.docker.image.rootfs.diff.tar.gzip', size: layer.length, digest: sha256(layer) }],
  }),
);
const arm = Buffer.from(single.toString().replace('"layers"', '"annotations":{"arch":"arm64"},"layers"'));
const index = Buffer.from(
  JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: [
      { mediaType: 'application/vnd.docker.distribution.manifest.v2+json', size: single.length, digest: sha256(single), platform: { architecture: 'amd64', os: 'linux' } },
      { mediaType: 'application/vnd.docker.distribution.manifest.v2+json', size: arm.length, digest: sha256(arm), platform: { architecture: 'arm64', os: 'linux' } },
    ],
  }),
);

interface Manifest {
  readonly body: Buffer;
  readonly mediaType: string;
}

const DOCKER_V2 = 'application/vnd.docker.distribution.manifest.v2+json';
const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';

/** Manifests by `<name>:<tag>` (and by digest, under `<name>@<digest>`). */
export const MANIFESTS: Readonly<Record<string, Manifest>> = {
  'multi/app:v1': { body: index, mediaType: OCI_INDEX },
  'single/app:v1': { body: single, mediaType: DOCKER_V2 },
  'library/tool:v1': { body: single, mediaType: DOCKER_V2 },
  'nohead/app:v1': { body: single, mediaType: DOCKER_V2 },
  'ratelimited/app:v1': { body: single, mediaType: DOCKER_V2 },
  'slow/app:v1': { body: single, mediaType: DOCKER_V2 },
  'proj/repo/app:v1': { body: index, mediaType: OCI_INDEX },
};
export const DIGESTS = { index: sha256(index), single: sha256(single) };

export interface FakeRegistryOptions {
  /** Requests answered 429 before `ratelimited/*` answers. @default 2 */
  readonly rateLimitTimes?: number;
  /** The Google token the token service wants as basic auth; the others are refused. @default - anonymous tokens */
  readonly basic?: string;
  /** More tags (`<name>:<tag>`), each serving the index or the single-platform manifest (`moved`: another manifest). @default - none */
  readonly extra?: Readonly<Record<string, 'index' | 'single' | 'moved'>>;
}

export interface FakeRegistry {
  readonly base: string;
  readonly host: string;
  /** Every request: `METHOD path auth?`. */
  readonly log: string[];
  close(): Promise<void>;
}

const TOKEN = 'fake-registry-token';

export async function startFakeRegistry(o: FakeRegistryOptions = {}): Promise<FakeRegistry> {
  const log: string[] = [];
  let limited = 0;
  const held: http.ServerResponse[] = [];
  const bodies = { index: MANIFESTS['multi/app:v1']!, single: MANIFESTS['single/app:v1']!, moved: { body: arm, mediaType: DOCKER_V2 } };
  const manifests: Record<string, Manifest> = { ...MANIFESTS, ...Object.fromEntries(Object.entries(o.extra ?? {}).map(([k, v]) => [k, bodies[v]])) };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const auth = req.headers.authorization ?? '';
    log.push(`${req.method} ${url.pathname}${auth ? ` ${auth.split(' ')[0]}` : ''}`);
    const base = `http://${req.headers.host}`;
    if (url.pathname === '/token') {
      if (o.basic !== undefined && auth !== `Basic ${Buffer.from(`oauth2accesstoken:${o.basic}`).toString('base64')}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"errors":[{"code":"UNAUTHORIZED"}]}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: TOKEN, access_token: TOKEN, expires_in: 300 }));
      return;
    }
    if (!url.pathname.startsWith('/v2/')) {
      res.writeHead(404).end();
      return;
    }
    const m = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/.exec(url.pathname);
    const name = m?.[1] ?? '';
    if (name.startsWith('slow/')) {
      held.push(res);
      return;
    }
    if (name.startsWith('ratelimited/') && limited < (o.rateLimitTimes ?? 2)) {
      limited++;
      res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' }).end('{"errors":[{"code":"TOOMANYREQUESTS"}]}');
      return;
    }
    if (auth !== `Bearer ${TOKEN}`) {
      const scope = name ? `,scope="repository:${name}:pull"` : '';
      res.writeHead(401, { 'www-authenticate': `Bearer realm="${base}/token",service="fake-registry"${scope}`, 'content-type': 'application/json' }).end('{"errors":[{"code":"UNAUTHORIZED"}]}');
      return;
    }
    if (url.pathname === '/v2/' || url.pathname === '/v2') {
      res.writeHead(200, { 'content-type': 'application/json', 'docker-distribution-api-version': 'registry/2.0' }).end('{}');
      return;
    }
    const tags = /^\/v2\/(.+)\/tags\/list$/.exec(url.pathname);
    if (tags) {
      const list = Object.keys(manifests).filter((k) => k.startsWith(`${tags[1]}:`)).map((k) => k.slice(tags[1]!.length + 1));
      res.writeHead(list.length ? 200 : 404, { 'content-type': 'application/json' }).end(list.length ? JSON.stringify({ name: tags[1], tags: list }) : '{"errors":[{"code":"NAME_UNKNOWN"}]}');
      return;
    }
    if (m?.[2] === 'blobs') {
      const blob = [config, layer].find((b) => sha256(b) === m[3]);
      if (!blob) res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"code":"BLOB_UNKNOWN"}]}');
      else res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': blob.length, 'docker-content-digest': m[3] }).end(req.method === 'HEAD' ? undefined : blob);
      return;
    }
    const ref = m?.[3] ?? '';
    const found = ref.startsWith('sha256:')
      ? Object.entries(manifests).find(([k, v]) => k.startsWith(`${name}:`) && sha256(v.body) === ref)?.[1] ??
        (sha256(single) === ref ? MANIFESTS['single/app:v1'] : sha256(arm) === ref ? { body: arm, mediaType: DOCKER_V2 } : undefined)
      : manifests[`${name}:${ref}`];
    if (!m || !found) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}');
      return;
    }
    const headers: Record<string, string | number> = { 'content-type': found.mediaType, 'content-length': found.body.length, 'docker-distribution-api-version': 'registry/2.0' };
    if (!(req.method === 'HEAD' && name.startsWith('nohead/'))) headers['docker-content-digest'] = sha256(found.body);
    res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : found.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        held.forEach((r) => r.destroy());
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
