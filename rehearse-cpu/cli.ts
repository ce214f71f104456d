/**
 * Entry point of `npm run rehearse:cpu -- <pipeline> [--config <file>]`: builds the pipeline's rehearsal with the
 * deployment (config/deployment.ts loadDeployment, REHEARSE=<pipeline>), writes its plan (rehearse-cpu/plan.ts) to
 * .rehearse/runs/<pipeline>/plan.json and runs python/rehearse_cpu/run.py on it in the locked MaxText environment
 * (scripts/rehearse-cpu-install.sh). Exit status: the Python side's (0 = every check passed).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parseArgs } from 'util';
import { loadDeployment } from '../config/deployment';
import { cpuPlan } from './plan';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * The deployment with the rehearsal of REHEARSE. A config whose infra has no single-host pool (the example's v6e-32)
 * cannot build the rehearsal; no TPU is used here, so it is built again as if the pool were spot capacity (printed).
 */
function buildDeployment(): ReturnType<typeof loadDeployment> {
  try {
    return loadDeployment();
  } catch (first) {
    if (process.env.SINGLE_HOST_RESERVATION || process.env.SINGLE_HOST_CAPACITY || !String(first).includes('single-host pool')) throw first;
    process.env.SINGLE_HOST_CAPACITY = 'spot';
    process.stdout.write('substitution: SINGLE_HOST_CAPACITY=spot, so the one-host rehearsal builds (no TPU capacity is used on CPU)\n');
    return loadDeployment();
  }
}

function main(): number {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { config: { type: 'string' }, from: { type: 'string' } } });
  if (positionals.length !== 1) {
    process.stderr.write('usage: npm run rehearse:cpu -- <pipeline> [--config config/examples/<file>.json] [--from <step>]\n');
    return 2;
  }
  const name = positionals[0];
  if (values.config) process.env.CONFIG_FILE = values.config;
  process.env.REHEARSE = name;
  const deployment = buildDeployment();
  const rehearsal = deployment.pipelines.find((p) => p.rehearsal && p.name.endsWith(name));
  if (!rehearsal) {
    process.stderr.write(`rehearse:cpu: the deployment built no rehearsal of '${name}'; pipelines: ${deployment.pipelines.map((p) => p.name).join(', ')}\n`);
    return 2;
  }
  const dir = path.join(ROOT, '.rehearse', 'runs', name);
  // --from <step>: keep the run folder and what the earlier steps wrote there, and start at that step.
  if (values.from) process.env.REHEARSE_CPU_FROM = values.from;
  else fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const planFile = path.join(dir, 'plan.json');
  fs.writeFileSync(planFile, JSON.stringify(cpuPlan(rehearsal, name), null, 1) + '\n');
  const python = path.join(ROOT, '.rehearse', 'current', 'maxtext', 'bin', 'python');
  const r = spawnSync(python, [path.join(ROOT, 'python', 'rehearse_cpu', 'run.py'), planFile], { stdio: 'inherit', cwd: ROOT });
  return r.status ?? 1;
}

process.exitCode = main();
