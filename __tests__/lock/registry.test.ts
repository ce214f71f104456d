/**
 * lock/registry.ts against a loopback registry (fake-registry.ts: token auth, HEAD and GET of an OCI index and a
 * single-platform Docker manifest, 401/404/429, a registry that never answers), cross-checked with an independent
 * client, Debian's skopeo 1.9 (`skopeo inspect --tls-verify=false docker://127.0.0.1:PORT/...`): the digest the lock
 * writes is the sha256 of the manifest bytes skopeo receives, and of the digest skopeo reports.
 */
import { execFile, spawnSync } from 'child_process';
import { promisify } from 'util';
import { createHash } from 'crypto';
import { bearerChallenge, registryCoordinates, resolveImage } from '../../lock/registry';
import { DIGESTS, FakeRegistry, startFakeRegistry } from './fake-registry';

let reg: FakeRegistry;
beforeEach(async () => {
  reg = await startFakeRegistry();
});
afterEach(() => reg.close());

const noWait = { sleep: async () => undefined };

test('a multi-platform image is locked at its index digest, through the bearer challenge (HEAD only)', async () => {
  const r = await resolveImage(`${reg.host}/multi/app:v1`, { endpoints: { [reg.host]: reg.base }, ...noWait });
  expect(r).toEqual({ digest: DIGESTS.index, source: `HEAD ${reg.host}/v2/multi/app/manifests/v1: Docker-Content-Digest` });
  expect(reg.log).toEqual(['HEAD /v2/multi/app/manifests/v1', 'GET /token', 'HEAD /v2/multi/app/manifests/v1 Bearer']);
});

test('a single-platform image is locked at its manifest digest', async () => {
  const r = await resolveImage(`${reg.host}/single/app:v1`, { endpoints: { [reg.host]: reg.base }, ...noWait });
  expect(r).toMatchObject({ digest: DIGESTS.single });
});

test('a registry that leaves Docker-Content-Digest off a HEAD: GET and the sha256 of the exact bytes', async () => {
  const r = await resolveImage(`${reg.host}/nohead/app:v1`, { endpoints: { [reg.host]: reg.base }, ...noWait });
  expect(r).toEqual({ digest: DIGESTS.single, source: expect.stringMatching(/^GET .*sha256 of the manifest bytes/) });
  expect(reg.log.slice(-1)).toEqual(['GET /v2/nohead/app/manifests/v1 Bearer']);
});

test('Docker Hub: a reference without a host is registry-1.docker.io library/<name> (REGISTRY_ENDPOINTS redirects it)', async () => {
  expect(registryCoordinates('tool:v1')).toEqual({ host: 'registry-1.docker.io', name: 'library/tool', tag: 'v1', base: 'https://registry-1.docker.io' });
  expect(registryCoordinates('vllm/vllm-tpu:nightly')?.name).toBe('vllm/vllm-tpu');
  const r = await resolveImage('tool:v1', { endpoints: { 'registry-1.docker.io': reg.base }, ...noWait });
  expect(r).toMatchObject({ digest: DIGESTS.single });
});

test('Artifact Registry: the token exchange carries the gcloud token as basic auth oauth2accesstoken', async () => {
  await reg.close();
  reg = await startFakeRegistry({ basic: 'ya29.user-token' });
  const endpoints = { 'us-docker.pkg.dev': reg.base };
  const ok = await resolveImage('us-docker.pkg.dev/proj/repo/app:v1', { endpoints, googleToken: async () => 'ya29.user-token', ...noWait });
  expect(ok).toMatchObject({ digest: DIGESTS.index });
  const wrong = await resolveImage('us-docker.pkg.dev/proj/repo/app:v1', { endpoints, googleToken: async () => 'ya29.expired', ...noWait });
  expect(wrong).toEqual({ problem: expect.stringMatching(/^image us-docker\.pkg\.dev\/proj\/repo\/app:v1: the token service 127\.0\.0\.1:\d+ answered 401 Unauthorized; run `gcloud auth login`/) });
  const none = await resolveImage('us-docker.pkg.dev/proj/repo/app:v1', { endpoints, googleToken: async () => undefined, ...noWait });
  expect(none).toEqual({ problem: expect.stringMatching(/answered 401 Unauthorized; `gcloud auth print-access-token` gave no token and anonymous access is refused: run `gcloud auth login`$/) });
  // A public repository: anonymous tokens, no gcloud login needed.
  await reg.close();
  reg = await startFakeRegistry();
  expect(await resolveImage('us-docker.pkg.dev/proj/repo/app:v1', { endpoints: { 'us-docker.pkg.dev': reg.base }, googleToken: async () => undefined, ...noWait })).toMatchObject({ digest: DIGESTS.index });
});

test('a tag the registry does not have: 404 named, with what to do', async () => {
  const r = await resolveImage(`${reg.host}/single/app:v9`, { endpoints: { [reg.host]: reg.base }, ...noWait });
  expect(r).toEqual({ problem: expect.stringMatching(/^image 127\.0\.0\.1:\d+\/single\/app:v9: 127\.0\.0\.1:\d+ answered 404 \(no such tag or repository\); check the tag exists/) });
});

test('429: waits Retry-After and says so, then resolves; past the retries it fails naming the limit', async () => {
  const lines: string[] = [];
  const waits: number[] = [];
  const o = { endpoints: { [reg.host]: reg.base }, log: (l: string) => lines.push(l), sleep: async (ms: number) => void waits.push(ms) };
  expect(await resolveImage(`${reg.host}/ratelimited/app:v1`, o)).toMatchObject({ digest: DIGESTS.single });
  expect(waits).toEqual([1000, 1000]);
  expect(lines[0]).toMatch(/rate limited \(429\); waiting 1 s \(attempt 2 of 4\)$/);
  await reg.close();
  reg = await startFakeRegistry({ rateLimitTimes: 10 });
  const r = await resolveImage(`${reg.host}/ratelimited/app:v1`, { ...o, endpoints: { [reg.host]: reg.base }, retries: 2 });
  expect(r).toEqual({ problem: expect.stringMatching(/rate limited \(429\) 3 times; Docker Hub limits anonymous pulls: wait, run again later, or point REGISTRY_ENDPOINTS at a mirror$/) });
});

test('a registry that never answers: the deadline names the host', async () => {
  const r = await resolveImage(`${reg.host}/slow/app:v1`, { endpoints: { [reg.host]: reg.base }, timeoutMs: 300, ...noWait });
  expect(r).toEqual({ problem: `image ${reg.host}/slow/app:v1: ${reg.host} did not answer (no answer within 0.3 s); check the network, or point REGISTRY_ENDPOINTS at a mirror` });
});

test('a refused connection names the host', async () => {
  await reg.close();
  const r = await resolveImage(`${reg.host}/single/app:v1`, { endpoints: { [reg.host]: reg.base }, ...noWait });
  expect(r).toEqual({ problem: `image ${reg.host}/single/app:v1: ${reg.host} did not answer (ECONNREFUSED); check the network, or point REGISTRY_ENDPOINTS at a mirror` });
  reg = await startFakeRegistry();
});

test('bearer challenges: quoted and bare parameters; not a bearer challenge', () => {
  expect(bearerChallenge('Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/ubuntu:pull"')).toEqual({
    realm: 'https://auth.docker.io/token',
    service: 'registry.docker.io',
    scope: 'repository:library/ubuntu:pull',
  });
  expect(bearerChallenge('Basic realm="x"')).toBeUndefined();
  expect(bearerChallenge(null)).toBeUndefined();
});

/** skopeo, the independent client; in CI (.ci/run installs it) its absence fails, elsewhere the test says why it skips. */
const skopeo = spawnSync('skopeo', ['--version']).status === 0;
const skopeoTest = skopeo || process.env.CI === 'true' ? test : test.skip;
if (!skopeo && process.env.CI !== 'true') console.warn('registry.test: skopeo is not installed (apt-get install -y skopeo): the cross-check with it is skipped');

skopeoTest('skopeo agrees: the same fake, the same digests (index and single-platform manifest)', async () => {
  // Asynchronous: the fake registry answers from this same process.
  const inspect = async (args: string[]) => (await promisify(execFile)('skopeo', ['inspect', '--tls-verify=false', ...args], { timeout: 60_000, encoding: 'buffer' })).stdout;
  const raw = await inspect(['--raw', `docker://${reg.host}/multi/app:v1`]);
  const ours = await resolveImage(`${reg.host}/multi/app:v1`, { endpoints: { [reg.host]: reg.base }, ...noWait });
  expect(ours).toMatchObject({ digest: `sha256:${createHash('sha256').update(raw).digest('hex')}` });
  const single = JSON.parse((await inspect([`docker://${reg.host}/single/app:v1`])).toString()) as { Digest: string };
  const mine = await resolveImage(`${reg.host}/single/app:v1`, { endpoints: { [reg.host]: reg.base }, ...noWait });
  expect(mine).toMatchObject({ digest: single.Digest });
  expect(reg.log).toContain('GET /token');
});
