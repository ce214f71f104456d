/**
 * What `npm run synth|deploy` does per environment (scripts/cdktf.mjs): the check names the environment's own output
 * folder, which cdktf gets as --output (unless the user gave one), and the synthesis there names what it was built from;
 * `deploy <stack> --migrate-state` runs the state move first (main.ts --migrate-state) and never hands cdktf the flag.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { APP_NODE_FLAGS } from '../../review/load';
import { parseArgs, run as review } from '../../review/cli';
import { terraformTest } from '../ci-env';
import { ensureDist } from '../dist';
import { configFile } from '../util';
import { runWrapper } from '../stand-ins';

const ROOT = path.resolve(__dirname, '..', '..');
beforeAll(ensureDist);

const PROD = configFile((c) => {
  Object.assign(c, { project: 'acme-prod', clusterName: 'prod-tpu', bucket: 'acme-prod-ckpt' });
  c.tpu.reservation = 'acme-prod-v6e-32';
});

/** scripts/cdktf.mjs with the stand-in cdktf (__tests__/stand-ins.ts), which runs the app into the --output it got. */
function wrapper(args: string[], env: Record<string, string> = {}) {
  const r = runWrapper(args, env);
  return { ...r, called: r.called?.args };
}

test("synth: cdktf gets the environment's own folder; the synthesis names the environment and its config, and so does its review", () => {
  const r = wrapper(['synth'], { CONFIG_FILE: PROD });
  expect(r.status).toBe(0);
  expect(r.called).toEqual(['synth', '--output', 'cdktf.out.acme-prod.prod-tpu']);
  expect(r.stdout).toMatch(/^environment acme-prod\.prod-tpu \(project acme-prod, cluster prod-tpu, region us-east5\), built from \S+ \(CONFIG_FILE\) and no environment variable; output folder cdktf\.out\.acme-prod\.prod-tpu\n/m);
  const out = path.join(r.dir, 'cdktf.out.acme-prod.prod-tpu');
  expect(fs.readdirSync(path.join(out, 'stacks')).sort()).toEqual(['infra', 'rl-gemma4', 'rl-qwen3', 'sft-gemma4']);
  expect(fs.readFileSync(path.join(out, 'environment.txt'), 'utf8')).toMatch(/^environment acme-prod\.prod-tpu .*built from .* \(CONFIG_FILE\)/);
  const { markdown } = review(parseArgs(['--from', out]), ROOT);
  expect(markdown).toMatch(/\(from `[^`]+`: environment acme-prod\.prod-tpu \(project acme-prod, cluster prod-tpu, region us-east5\), built from /);
});

test('an --output the user gives wins; a config error stops before cdktf, naming both sources', () => {
  expect(wrapper(['synth', '--output', 'mine'], { CONFIG_FILE: PROD }).called).toEqual(['synth', '--output', 'mine']);
  const r = wrapper(['deploy', 'infra'], { CONFIG_FILE: PROD, PROJECT: 'acme-dev' });
  expect(r.status).toBe(1);
  expect(r.called).toBeUndefined();
  expect(r.stderr).toMatch(/PROJECT \(env\) is 'acme-dev', \S+: project is 'acme-prod': the config file and the environment name different deployments/);
});

terraformTest(
  'deploy --migrate-state: the move runs first; when it refuses (no state at the old key), cdktf never starts',
  () => {
    const r = wrapper(['deploy', 'infra', '--migrate-state'], { CONFIG_FILE: PROD });
    expect(r.status).toBe(1);
    expect(r.called).toBeUndefined();
    expect(r.stderr).toContain('infra: nothing moved: the key before the upgrade (local ');
    expect(r.stderr).toContain('terraform.infra.tfstate) holds no state');
  },
  120_000,
);

test('main.js --migrate-state --dry-run names the move and its commands; an unknown stack is refused', () => {
  const main = (...args: string[]) =>
    spawnSync(process.execPath, [...APP_NODE_FLAGS, path.join(ROOT, 'dist', 'main.js'), '--migrate-state', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, CONFIG_FILE: PROD, STATE_BUCKET: 'acme-tf' },
      encoding: 'utf8',
    });
  const dry = main('--dry-run', 'rl-qwen3');
  expect(dry.status).toBe(0);
  expect(dry.stdout).toContain('rl-qwen3: would move gcs gs://acme-tf/tpu-post-training/rl-qwen3 -> gcs gs://acme-tf/tpu-post-training/acme-prod/prod-tpu/rl-qwen3\n');
  const bad = main('rl-qwen4');
  expect(bad.status).toBe(1);
  expect(bad.stderr).toBe("--migrate-state: name the stacks to move (infra, rl-qwen3, rl-gemma4, sft-gemma4), got 'rl-qwen4'\n");
});
