/**
 * `npm run fetch-schemas -- <dir>` (scripts/fetch-schemas.sh), run with a stand-in `curl` first on PATH that copies
 * from a local folder (no network here): it asks for the raw files at the pinned tags, keeps the files whose SHA-256
 * matches the committed list, and fails naming the file on a download error or a mismatch, leaving no copy of it.
 */
import { spawnSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ARGO_WORKFLOWS } from '../../jobs/argo';

const ROOT = path.resolve(__dirname, '..', '..');
const SCRIPT = path.join(ROOT, 'scripts', 'fetch-schemas.sh');
const SUMS = path.join(ROOT, 'scripts', 'crd-schemas.sha256');
const SHARED = path.resolve(ROOT, '..', 'shared', 'schemas');

/** The committed list: file -> SHA-256. */
const sums = new Map(
  fs
    .readFileSync(SUMS, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [sum, file] = l.trim().split(/\s+/);
      return [file, sum] as const;
    }),
);
/** The script's sources: file -> raw URL. */
const sources = new Map(
  [...fs.readFileSync(SCRIPT, 'utf8').matchAll(/^\s+"(\S+) (\S+) (\S+) (\S+)"$/gm)].map((m) => [
    m[1],
    `https://raw.githubusercontent.com/${m[2]}/${m[3]}/${m[4]}/${m[1]}`,
  ]),
);

const FAKE_CURL = `#!/usr/bin/env bash
out=""; url=""
while [ $# -gt 0 ]; do
  case "$1" in
    --output|-o) out="$2"; shift 2 ;;
    --retry|--proto) shift 2 ;;
    -*) shift ;;
    *) url="$1"; shift ;;
  esac
done
echo "$url" >> "$FAKE_CURL_LOG"
src="$FAKE_CURL_SRC/$(basename "$url")"
if [ ! -f "$src" ]; then echo "curl: (22) The requested URL returned error: 404" >&2; exit 22; fi
cp "$src" "$out"
`;

const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** A sandbox: a copy of the script with its own sums list (over made-up files), a source folder, a stand-in curl. */
function sandbox(files: Record<string, string>, served: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fetch-schemas-'));
  fs.mkdirSync(path.join(dir, 'scripts'));
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.copyFileSync(SCRIPT, path.join(dir, 'scripts', 'fetch-schemas.sh'));
  fs.writeFileSync(path.join(dir, 'scripts', 'crd-schemas.sha256'), Object.entries(files).map(([f, t]) => `${sha(t)}  ${f}\n`).join(''));
  for (const [f, t] of Object.entries(served)) fs.writeFileSync(path.join(dir, 'src', f), t);
  fs.writeFileSync(path.join(dir, 'bin', 'curl'), FAKE_CURL, { mode: 0o755 });
  return dir;
}

function run(script: string, out: string, src: string, log: string) {
  const r = spawnSync('bash', [script, out], {
    env: { PATH: `${path.dirname(log)}/bin:${process.env.PATH}`, FAKE_CURL_SRC: src, FAKE_CURL_LOG: log },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Made-up contents for every file the script fetches. */
const good = Object.fromEntries([...sources.keys()].map((f) => [f, `kind: CustomResourceDefinition # ${f}\n`]));

test('the script fetches exactly the files of the committed sums list, from the pinned tags', () => {
  expect([...sources.keys()].sort()).toEqual([...sums.keys()].sort());
  expect(sources.size).toBe(6);
  const example = JSON.parse(fs.readFileSync(path.join(ROOT, 'config', 'example.json'), 'utf8'));
  // The schemas are those of the controllers the infra stack installs.
  expect(sources.get('jobset.x-k8s.io_jobsets.yaml')).toBe(
    `https://raw.githubusercontent.com/kubernetes-sigs/jobset/v${example.controllers.jobsetVersion}/config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml`,
  );
  for (const kind of ['resourceflavors', 'clusterqueues', 'localqueues']) {
    expect(sources.get(`kueue.x-k8s.io_${kind}.yaml`)).toBe(
      `https://raw.githubusercontent.com/kubernetes-sigs/kueue/v${example.controllers.kueueVersion}/config/components/crd/bases/kueue.x-k8s.io_${kind}.yaml`,
    );
  }
  expect(sources.get('secrets-store.csi.x-k8s.io_secretproviderclasses.yaml')).toBe(
    'https://raw.githubusercontent.com/kubernetes-sigs/secrets-store-csi-driver/v1.6.0/deploy/secrets-store.csi.x-k8s.io_secretproviderclasses.yaml',
  );
  // The Workflow CRD of the Argo Workflows release infra installs (jobs/argo.ts), the full CRD its chart's Job applies.
  expect(sources.get('argoproj.io_workflows.yaml')).toBe(`${ARGO_WORKFLOWS.crdBaseUrl}/argoproj.io_workflows.yaml`);
});

test('success: every file downloaded from its raw URL and kept, exit 0', () => {
  const dir = sandbox(good, good);
  const out = path.join(dir, 'out');
  const r = run(path.join(dir, 'scripts', 'fetch-schemas.sh'), out, path.join(dir, 'src'), path.join(dir, 'curl.log'));
  expect(r).toMatchObject({ status: 0, stderr: '' });
  expect(fs.readdirSync(out).sort()).toEqual(Object.keys(good).sort());
  for (const [f, t] of Object.entries(good)) expect(fs.readFileSync(path.join(out, f), 'utf8')).toBe(t);
  expect(fs.readFileSync(path.join(dir, 'curl.log'), 'utf8').trim().split('\n').sort()).toEqual([...sources.values()].sort());
});

test('a download error fails naming the file and its URL; the other files are still fetched', () => {
  const served = { ...good };
  delete served['kueue.x-k8s.io_localqueues.yaml'];
  const dir = sandbox(good, served);
  const out = path.join(dir, 'out');
  const r = run(path.join(dir, 'scripts', 'fetch-schemas.sh'), out, path.join(dir, 'src'), path.join(dir, 'curl.log'));
  expect(r.status).toBe(1);
  expect(r.stderr).toContain(`fetch-schemas: kueue.x-k8s.io_localqueues.yaml: download failed from ${sources.get('kueue.x-k8s.io_localqueues.yaml')}`);
  expect(r.stderr).toContain('fetch-schemas: failed: kueue.x-k8s.io_localqueues.yaml');
  expect(fs.readdirSync(out).sort()).toEqual(Object.keys(served).sort());
});

test('a checksum mismatch fails naming the file, and removes it (also a copy left by an earlier run)', () => {
  const served = { ...good, 'jobset.x-k8s.io_jobsets.yaml': 'kind: Tampered\n' };
  const dir = sandbox(good, served);
  const out = path.join(dir, 'out');
  fs.mkdirSync(out);
  fs.writeFileSync(path.join(out, 'jobset.x-k8s.io_jobsets.yaml'), good['jobset.x-k8s.io_jobsets.yaml']);
  const r = run(path.join(dir, 'scripts', 'fetch-schemas.sh'), out, path.join(dir, 'src'), path.join(dir, 'curl.log'));
  expect(r.status).toBe(1);
  expect(r.stderr).toContain(
    `fetch-schemas: jobset.x-k8s.io_jobsets.yaml: SHA-256 mismatch: got ${sha('kind: Tampered\n')}, expected ${sha(good['jobset.x-k8s.io_jobsets.yaml'])}`,
  );
  expect(r.stderr).toContain('fetch-schemas: failed: jobset.x-k8s.io_jobsets.yaml');
  expect(fs.existsSync(path.join(out, 'jobset.x-k8s.io_jobsets.yaml'))).toBe(false);
  expect(fs.readdirSync(out).filter((f) => f.endsWith('.part'))).toEqual([]);
});

test('no directory: a usage message, exit 2', () => {
  const r = spawnSync('bash', [SCRIPT], { encoding: 'utf8' });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('usage: npm run fetch-schemas -- <dir>');
});

// The committed list is the upstream files' sums: checked against the real files when they are next to the repo.
const real = fs.existsSync(SHARED) && [...sums.keys()].every((f) => fs.existsSync(path.join(SHARED, f)));
(real ? test : test.skip)('the committed sums match the upstream files (../shared/schemas), and the real script accepts them', () => {
  for (const [file, sum] of sums) expect({ file, sum: sha(fs.readFileSync(path.join(SHARED, file))) }).toEqual({ file, sum });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fetch-schemas-real-'));
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.writeFileSync(path.join(dir, 'bin', 'curl'), FAKE_CURL, { mode: 0o755 });
  const r = run(SCRIPT, path.join(dir, 'out'), SHARED, path.join(dir, 'curl.log'));
  expect(r).toMatchObject({ status: 0, stderr: '' });
  expect(fs.readdirSync(path.join(dir, 'out')).sort()).toEqual([...sums.keys()].sort());
});
