/**
 * `npm run deploy -- <pipeline>` says whether a passing rehearsal of exactly this combination exists (scripts/cdktf.mjs
 * rehearsalLines): after cdktf's apply, for each pipeline stack it named (not a rehearsal stack, not infra or a serve
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
  expect(failed.stdout).not.toContain('Rehearsal of');
  const infra = deploy(['deploy', 'infra']);
  expect(infra.status).toBe(0);
  expect(infra.terraform).toEqual([]);
});
