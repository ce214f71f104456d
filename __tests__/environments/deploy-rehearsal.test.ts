/**
 * `npm run deploy -- <pipeline>` says whether a passing rehearsal of exactly this combination exists: before cdktf
 * starts, from the same bucket listing the plan's data source makes (status/cli.ts rehearsal-check, against a Cloud
 * Storage stand-in), and (scripts/cdktf.mjs rehearsalLines) after cdktf's apply, for each pipeline stack it named (not a rehearsal stack, not infra or a serve
 * stack), the stack's `rehearsal` output read with `terraform output -raw rehearsal` in the stack's working folder.
 * Stand-ins for cdktf and terraform record their arguments; the deploy's exit status stays cdktf's.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ensureDist } from '../dist';

const ROOT = path.resolve(__dirname, '..', '..');
beforeAll(ensureDist);

/** A stand-in on PATH: appends its arguments to `<name>.calls` and runs `body` (node). */
function standIn(bin: string, dir: string, name: string, body: string): void {
  fs.writeFileSync(
    path.join(bin, name),
    ['#!/usr/bin/env node', `require('fs').appendFileSync(${JSON.stringify(path.join(dir, `${name}.calls`))}, JSON.stringify(process.argv.slice(2)) + '\\n');`, body].join('\n'),
    { mode: 0o755 },
  );
}

function deploy(args: string[], cdktfExit = 0) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-deploy-rehearsal-'));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  standIn(bin, dir, 'cdktf', `process.exit(${cdktfExit});`);
  // passed for rl-qwen3, none for sft-gemma4, no state (an error) for rl-gemma4.
  standIn(
    bin,
    dir,
    'terraform',
    [
      "const chdir = process.argv.find((a) => a.startsWith('-chdir=')) ?? '';",
      "if (chdir.endsWith('/rl-qwen3')) process.stdout.write('passed (key 0123456789ab): a rehearsal of rl-qwen3 passed for exactly this combination');",
      "else if (chdir.endsWith('/sft-gemma4')) process.stdout.write('none: no passing rehearsal of sft-gemma4 for this combination (key ba9876543210); run `npm run deploy -- rehearse-sft-gemma4`');",
      "else { process.stderr.write('Error: No outputs found\\n'); process.exit(1); }",
    ].join('\n'),
  );
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'cdktf.mjs'), ...args], {
    cwd: ROOT,
    // No cluster: the status wait after the apply fails at once; the deploy's exit status stays cdktf's.
    env: { PATH: `${bin}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`, KUBECONFIG: path.join(dir, 'no-kubeconfig'), SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  const calls = (name: string) => (fs.existsSync(path.join(dir, `${name}.calls`)) ? fs.readFileSync(path.join(dir, `${name}.calls`), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]) : []);
  return { ...r, cdktf: calls('cdktf'), terraform: calls('terraform') };
}

test("after a pipeline's deploy: one line per named pipeline from its rehearsal output, read in its working folder", () => {
  const r = deploy(['deploy', 'infra', 'rl-qwen3', 'sft-gemma4', 'rehearse-rl-qwen3', 'rl-gemma4', '--auto-approve']);
  expect(r.status).toBe(0);
  expect(r.cdktf[0]!.slice(0, 2)).toEqual(['deploy', 'infra']);
  const outdir = r.cdktf[0]![r.cdktf[0]!.indexOf('--output') + 1]!;
  expect(r.terraform).toEqual(
    ['rl-qwen3', 'sft-gemma4', 'rl-gemma4'].map((p) => [`-chdir=${path.join(outdir, 'stacks', p)}`, 'output', '-no-color', '-raw', 'rehearsal']),
  );
  expect(r.stdout).toContain('\nRehearsal of rl-qwen3: passed (key 0123456789ab): a rehearsal of rl-qwen3 passed for exactly this combination\n');
  expect(r.stdout).toContain('\nRehearsal of sft-gemma4: none: no passing rehearsal of sft-gemma4 for this combination (key ba9876543210); run `npm run deploy -- rehearse-sft-gemma4`\n');
  expect(r.stdout).toContain(`\nRehearsal of rl-gemma4: not known (terraform output rehearsal in ${path.join(outdir, 'stacks', 'rl-gemma4')}: Error: No outputs found)\n`);
  expect(r.stdout).not.toContain('Rehearsal of rehearse-rl-qwen3');
});

test('no line when the apply failed, or for infra alone', () => {
  const failed = deploy(['deploy', 'rl-qwen3'], 1);
  expect(failed.status).toBe(1);
  expect(failed.terraform).toEqual([]);
  // Only the line said before the apply (the config's placeholders: not listed); none from the state.
  expect(failed.stdout.split('\n').filter((l) => l.startsWith('Rehearsal of'))).toEqual([expect.stringMatching(/^Rehearsal of rl-qwen3: not known before the apply \(the config still has placeholders/)]);
  const infra = deploy(['deploy', 'infra']);
  expect(infra.status).toBe(0);
  expect(infra.terraform).toEqual([]);
});

describe('before the apply: the same listing the plan makes, read-only, before cdktf starts (status rehearsal-check)', () => {
  const http = require('http') as typeof import('http');
  const { spawn } = require('child_process') as typeof import('child_process');
  const { loadDeployment } = require('../../config/deployment') as typeof import('../../config/deployment');
  const { rehearsalVerdictTexts } = require('../../jobs/rehearsal') as typeof import('../../jobs/rehearsal');
  // A deployment with no placeholder left (the plan's data source reads only then).
  const REAL = { PROJECT: 'acme-tpu-prod', GCS_BUCKET: 'acme-ckpt', RESERVATION: 'acme-v6e-32', SINGLE_HOST_RESERVATION: 'acme-v6e-8', AUTHORIZED_CIDR: '198.18.0.0/15' };
  const d = loadDeployment({ env: REAL });
  const proof = (name: string) => {
    const c = d.pipelines.find((p) => p.name === name)!.rehearsalCheck!;
    if (!('proof' in c)) throw new Error(c.unavailable);
    return c.proof;
  };

  /** A Cloud Storage stand-in for "Objects: list": `objects` per glob, in pages of one; `status` answers instead when set. */
  async function fakeGcs(objects: Record<string, string[]>, status?: number): Promise<{ url: string; requests: URL[]; close(): Promise<void> }> {
    const requests: URL[] = [];
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push(url);
      if (req.headers.authorization !== 'Bearer gcloud-token') return res.writeHead(401).end('{}');
      if (status) return res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":{}}');
      const names = objects[url.searchParams.get('matchGlob') ?? ''] ?? [];
      const at = Number(url.searchParams.get('pageToken') ?? 0);
      const body = names.length === 0 ? { kind: 'storage#objects' } : { items: [{ name: names[at] }], ...(at + 1 < names.length ? { nextPageToken: String(at + 1) } : {}) };
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  /** The deploy with stand-ins for cdktf (prints a marker), terraform and gcloud; run asynchronously (the stand-in GCS answers meanwhile). */
  async function deployAsync(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; cdktf: string[][] }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-deploy-before-'));
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    standIn(bin, dir, 'cdktf', "process.stdout.write('CDKTF STARTS\\n');");
    standIn(bin, dir, 'terraform', "process.stdout.write('passed (key x): from the state');");
    standIn(bin, dir, 'gcloud', "process.stdout.write('gcloud-token\\n');");
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'cdktf.mjs'), ...args], {
      cwd: ROOT,
      env: { PATH: `${bin}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`, KUBECONFIG: path.join(dir, 'no-kubeconfig'), HOME: dir, ...env },
    });
    let stdout = '';
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.resume();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const calls = fs.existsSync(path.join(dir, 'cdktf.calls')) ? fs.readFileSync(path.join(dir, 'cdktf.calls'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]) : [];
    fs.rmSync(dir, { recursive: true, force: true });
    return { code, stdout, cdktf: calls };
  }

  test('passed, stale and none said before cdktf starts, from one listing each of the proof glob in the bucket', async () => {
    const other = 'qwen3-30b-a3b/hf-trained/rehearse-rl-000000000000/000000000000/eval.json';
    const gcs = await fakeGcs({ [proof('rl-qwen3').glob]: ['unrelated', proof('rl-qwen3').exact], [proof('sft-gemma4').glob]: [other] });
    try {
      const r = await deployAsync(['deploy', 'rl-qwen3', 'sft-gemma4', 'rl-gemma4', 'rehearse-rl-qwen3', 'nope', '--auto-approve'], { ...REAL, STORAGE_EMULATOR_HOST: gcs.url });
      expect(r.code).toBe(0);
      const before = r.stdout.slice(0, r.stdout.indexOf('CDKTF STARTS'));
      expect(before).toContain(`\nRehearsal of rl-qwen3 (before the apply): ${rehearsalVerdictTexts(proof('rl-qwen3')).passed}\n`);
      expect(before).toContain(`\nRehearsal of sft-gemma4 (before the apply): ${rehearsalVerdictTexts(proof('sft-gemma4')).stale}\n`);
      expect(before).toContain(`\nRehearsal of rl-gemma4 (before the apply): ${rehearsalVerdictTexts(proof('rl-gemma4')).none}\n`);
      expect(before).toContain('\nRehearsal of nope: not known (not a pipeline this config builds)\n');
      expect(before).not.toContain('rehearse-rl-qwen3');
      // The same request as the data source: the bucket, matchGlob = the proof's glob, every page followed.
      const lists = gcs.requests.filter((u) => u.pathname === '/storage/v1/b/acme-ckpt/o');
      expect(lists.map((u) => [u.searchParams.get('matchGlob'), u.searchParams.get('pageToken')])).toEqual(
        expect.arrayContaining([[proof('rl-qwen3').glob, null], [proof('rl-qwen3').glob, '1'], [proof('sft-gemma4').glob, null], [proof('rl-gemma4').glob, null]]),
      );
      expect(lists).toHaveLength(4);
      // And after the apply, the plan's own output, as before.
      expect(r.stdout.slice(r.stdout.indexOf('CDKTF STARTS'))).toContain('\nRehearsal of rl-qwen3: passed (key x): from the state\n');
    } finally {
      await gcs.close();
    }
  });

  test('a listing that fails (403) is said, and the deploy goes on', async () => {
    const gcs = await fakeGcs({}, 403);
    try {
      const r = await deployAsync(['deploy', 'rl-qwen3'], { ...REAL, STORAGE_EMULATOR_HOST: gcs.url });
      expect(r.code).toBe(0);
      expect(r.cdktf).toHaveLength(1);
      expect(r.stdout).toContain(
        `Rehearsal of rl-qwen3: not known before the apply (listing gs://acme-ckpt/${proof('rl-qwen3').glob}: HTTP 403: your gcloud login may not list gs://acme-ckpt (roles/storage.objectViewer)); the apply's \`rehearsal\` output says it after\n`,
      );
    } finally {
      await gcs.close();
    }
  });

  test('placeholders left: not listed (the plan would stop there too); infra or a rehearsal alone: no check at all', async () => {
    const r = await deployAsync(['deploy', 'rl-qwen3'], { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' });
    expect(r.stdout).toMatch(/\nRehearsal of rl-qwen3: not known before the apply \(the config still has placeholders: [A-Z_, ]+\)\n[^]*CDKTF STARTS/);
    for (const args of [['deploy', 'infra'], ['deploy', 'rehearse-rl-qwen3']]) {
      const alone = await deployAsync(args, REAL);
      expect(alone.stdout).not.toContain('(before the apply)');
      expect(alone.stdout).not.toContain('not known before the apply');
    }
  });
});
