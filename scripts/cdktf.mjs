// `npm run synth|diff|deploy|destroy -- [stacks] [cdktf options]`: checks the config once (cdktf.json's app with
// `--check`: a config error is printed once and cdktf never starts), then runs `cdktf <command> <args>`.
//
// The one thing it adds: a stack named `serve-<pipeline>` turns that pipeline's serve stack on for this command (the
// SERVE variable, config/load.ts SERVE_ENV), so `npm run deploy -- serve-rl-qwen3` deploys it without
// `pipelines.rl-qwen3.serve.enabled` in the config, and `npm run destroy -- serve-rl-qwen3` removes it again. cdktf runs
// the app (cdktf.json) with this environment, so the check and the synthesis see the same stacks. A stack named
// `rehearse-<pipeline>` does the same for that pipeline's rehearsal (the REHEARSE variable, config/load.ts REHEARSE_ENV).
//
// Each environment (project + cluster) synthesizes and runs Terraform in its own folder: the check prints the
// environment's output folder (`cdktf.out.<project>.<cluster>`, stacks/backend.ts environmentOutdir) and this script
// passes it to cdktf as `--output`, so dev and prod never share a `.terraform`, a saved plan or a synthesized stack, and
// switching between them never makes Terraform ask to move state. `--output` given by the user wins.
//
// `deploy <stack> --migrate-state` runs the state move of that stack first (`node dist/main.js --migrate-state <stack>`, stacks/state-migration.ts: copies
// the state from the key before the upgrade to this environment's key, or refuses), then deploys without the flag.
//
// After a deploy that succeeded, for the pipeline stacks it named, the deploy waits a few minutes more, outside
// Terraform: `npm run status -- <pipelines> --until-started <UNTIL_STARTED_SECONDS>` polls until each pipeline's first
// step is admitted or queued by Kueue, prints where it stands and the `npm run status` command to follow it. Outside
// Terraform on purpose: the state lock is already released, nothing in the state waits (a `kubernetes_manifest` wait
// that times out taints the Workflow, so the next deploy would replace a running pipeline; a `terraform_data` waiter
// would hold the lock and be re-run on every apply), and a wait that times out or is interrupted (Ctrl-C, a closed
// laptop) changes nothing in the cluster or the state. Its result never changes the deploy's exit status.
//
// Whether a passing rehearsal of exactly this combination exists, for each pipeline stack a deploy names (not the
// rehearsals), is said twice: BEFORE cdktf starts (so before anything is spent), from the same bucket listing the plan's
// data source makes (`node dist/status/cli.js rehearsal-check <pipelines>`: read-only, the user's gcloud login, one
// list request per pipeline, no second plan), and again after the apply from the stack's `rehearsal` output
// (`terraform output -raw rehearsal` in its working folder; read-only), which is what the plan itself computed.
//
// Exit status: the check's when it fails, else cdktf's (128 + the signal number when a signal ended it).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import * as path from 'node:path';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVE_PREFIX = 'serve-';
const REHEARSE_PREFIX = 'rehearse-';

/** The names after `prefix` in the stack arguments, joined with the variable's own (order kept, each once). */
function prefixedList(prefix, args, current) {
  const named = args.filter((a) => a.startsWith(prefix) && a.length > prefix.length).map((a) => a.slice(prefix.length));
  const given = current.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return [...new Set([...given, ...named])].join(',');
}

/** The pipelines whose serve stack the arguments name, joined with SERVE's own (order kept, each once). */
export function serveList(args, current = '') {
  return prefixedList(SERVE_PREFIX, args, current);
}

/** The pipelines whose rehearsal (`rehearse-<pipeline>`) the arguments name, joined with REHEARSE's own. */
export function rehearseList(args, current = '') {
  return prefixedList(REHEARSE_PREFIX, args, current);
}

/** cdktf.json's app (`node <flags> dist/main.js`) without its `node`: the check runs the app as cdktf does. */
function appArgs() {
  const [node, ...rest] = JSON.parse(readFileSync(path.join(ROOT, 'cdktf.json'), 'utf8')).app.split(/\s+/);
  if (node !== 'node') throw new Error(`cdktf.json: app must start with node, got '${node}'`);
  return rest;
}

function exitOf(result) {
  if (result.error) {
    process.stderr.write(`${result.error.code === 'ENOENT' ? 'cdktf not found on PATH: run through npm run (it adds node_modules/.bin), after npm ci' : result.error.message}\n`);
    return 1;
  }
  if (result.signal) return 128 + (constants.signals[result.signal] ?? 0);
  return result.status ?? 1;
}

function main(argv) {
  const [command, ...args] = argv;
  if (!['synth', 'diff', 'deploy', 'destroy', EMPTY_BUCKET].includes(command ?? '')) {
    process.stderr.write(`usage: node scripts/cdktf.mjs synth|diff|deploy|destroy|${EMPTY_BUCKET} [stacks] [cdktf options], got '${command ?? ''}'\n`);
    return 2;
  }
  // `serve-` or `rehearse-` with no pipeline names no stack: say so rather than let it pass unnoticed.
  const bare = args.filter((a) => a === SERVE_PREFIX || a === REHEARSE_PREFIX);
  if (bare.length > 0) {
    process.stderr.write(`'${bare[0]}' names no stack: add the pipeline (${bare[0]}<pipeline>, e.g. ${bare[0]}rl-qwen3)\n`);
    return 2;
  }
  // A destroy synthesizes the stacks it names for their teardown (TEARDOWN: stacks/teardown-stack.ts) and turns no
  // serve stack or rehearsal on: the teardown of `serve-<p>` needs neither the pipeline nor its export.
  const destroying = command === 'destroy';
  const serve = destroying ? process.env.SERVE ?? '' : serveList(args, process.env.SERVE);
  const rehearse = destroying ? process.env.REHEARSE ?? '' : rehearseList(args, process.env.REHEARSE);
  const teardown = destroying ? teardownList(args, process.env.TEARDOWN) : '';
  const env = {
    ...process.env,
    CHECKPOINT_DISABLE: '1',
    ...(serve ? { SERVE: serve } : {}),
    ...(rehearse ? { REHEARSE: rehearse } : {}),
    ...(teardown ? { TEARDOWN: teardown } : {}),
  };
  const check = spawnSync(process.execPath, [...appArgs(), '--check', '--print-environment'], { cwd: ROOT, env, stdio: ['inherit', 'pipe', 'inherit'], encoding: 'utf8' });
  const checked = exitOf(check);
  if (checked !== 0) {
    process.stdout.write(check.stdout ?? '');
    return checked;
  }
  const environment = environmentOf(check.stdout ?? '');
  if (command === EMPTY_BUCKET) return emptyBucket(environment, env);
  const migrate = command === 'deploy' && args.includes(MIGRATE_FLAG);
  const cdktfArgs = withOutput(args.filter((a) => a !== MIGRATE_FLAG), environment.outdir);
  const given = cdktfArgs.findIndex((a) => a === '-o' || a === '--output');
  process.stdout.write(`${environment.line}; output folder ${given >= 0 ? cdktfArgs[given + 1] : environment.outdir}\n`);
  if (migrate) {
    const stacks = args.filter((a) => !a.startsWith('-'));
    const moved = exitOf(spawnSync(process.execPath, [...appArgs(), '--migrate-state', ...stacks], { cwd: ROOT, env, stdio: 'inherit' }));
    if (moved !== 0) return moved;
  }
  const named = command === 'deploy' ? pipelineStacks(cdktfArgs) : [];
  const toCheck = named.filter((p) => !p.startsWith(REHEARSE_PREFIX));
  if (toCheck.length > 0) spawnSync(process.execPath, rehearsalCheckArgs(toCheck), { cwd: ROOT, env, stdio: 'inherit' });
  if (destroying && teardown.split(',').includes('infra')) {
    // GKE refuses to delete a cluster whose deletion protection is on (in the state): lift it first, with an apply of
    // infra as its teardown synthesizes it (deletion protection off, no reservation or zone check).
    process.stdout.write(`Lifting GKE deletion protection before the destroy: ${liftCommand(cdktfArgs).join(' ')}\n`);
    const lifted = exitOf(spawnSync('cdktf', liftCommand(cdktfArgs), { cwd: ROOT, env, stdio: 'inherit' }));
    if (lifted !== 0) return lifted;
  }
  const deployed = exitOf(spawnSync('cdktf', [command, ...cdktfArgs], { cwd: ROOT, env, stdio: 'inherit' }));
  const pipelines = deployed === 0 ? named : [];
  const outdir = given >= 0 ? cdktfArgs[given + 1] : environment.outdir;
  for (const line of rehearsalLines(pipelines, outdir)) process.stdout.write(`${line}\n`);
  if (pipelines.length > 0) {
    process.stdout.write(`\nWaiting up to ${UNTIL_STARTED_SECONDS / 60} minutes for the first step of ${pipelines.join(', ')} to be admitted or queued (Ctrl-C stops only this wait):\n`);
    const waited = spawnSync(process.execPath, untilStartedArgs(pipelines), { cwd: ROOT, env, stdio: 'inherit' });
    process.stdout.write(`\n${afterWaitLine(waited.error || waited.signal ? undefined : waited.status, pipelines)}\n`);
  }
  return deployed;
}

/**
 * What the deploy runs before cdktf, for the pipeline stacks it names (not the rehearsals): the status CLI's
 * `rehearsal-check` (status/rehearsal.ts rehearsalBeforeApply), the same bucket listing the plan's data source makes,
 * read-only, with the user's gcloud login; its exit status changes nothing.
 */
export function rehearsalCheckArgs(pipelines) {
  return [path.join(ROOT, 'dist', 'status', 'cli.js'), 'rehearsal-check', ...pipelines];
}

/** The output every pipeline stack has (jobs/rehearsal.ts REHEARSAL_OUTPUT). */
export const REHEARSAL_OUTPUT = 'rehearsal';

/**
 * After a deploy, for each pipeline stack it named (not the rehearsals themselves): whether a passing rehearsal of
 * exactly this combination exists, the stack's `rehearsal` output (constructs/rehearsal-check.ts) read from the state
 * just applied with `terraform output -raw rehearsal` in the stack's working folder. Read-only; an output it cannot
 * read is said, never an error.
 */
export function rehearsalLines(pipelines, outdir) {
  return pipelines
    .filter((p) => !p.startsWith(REHEARSE_PREFIX))
    .map((p) => {
      const dir = path.join(outdir, 'stacks', p);
      const r = spawnSync('terraform', [`-chdir=${dir}`, 'output', '-no-color', '-raw', REHEARSAL_OUTPUT], { cwd: ROOT, encoding: 'utf8' });
      const value = r.status === 0 ? (r.stdout ?? '').trim() : '';
      const why = r.error ? r.error.message : (r.stderr ?? '').trim().split('\n').filter(Boolean).pop() ?? `exit ${r.status}`;
      return `Rehearsal of ${p}: ${value !== '' ? value : `not known (terraform output ${REHEARSAL_OUTPUT} in ${dir}: ${why})`}`;
    });
}

/** `npm run empty-bucket`: empties this environment's bucket (the config's, after the identity rule), nothing else. */
export const EMPTY_BUCKET = 'empty-bucket';

/** The stacks a destroy names (positional, no glob), joined with TEARDOWN's own (order kept, each once). */
export function teardownList(args, current = '') {
  const given = (current ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const withValue = new Set(['-o', '--output', '--var', '--var-file', '--parallelism', '--app', '-a']);
  const named = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i].startsWith('-')) {
      if (withValue.has(args[i])) i += 1;
      continue;
    }
    if (!/[*?]/.test(args[i])) named.push(args[i]);
  }
  return [...new Set([...given, ...named])].join(',');
}

/** The apply that lifts deletion protection before `destroy infra`: `deploy infra`, with the destroy's output folder and approval. */
export function liftCommand(cdktfArgs) {
  const out = cdktfArgs.findIndex((a) => a === '-o' || a === '--output');
  return ['deploy', 'infra', ...(out >= 0 ? cdktfArgs.slice(out, out + 2) : []), ...cdktfArgs.filter((a) => a === '--auto-approve')];
}

/**
 * `gcloud storage rm --recursive gs://<bucket>/**` for the bucket of this environment's config, after the check (so
 * after the identity rule: a shell still holding another environment's GCS_BUCKET stops it, naming both). Exit: gcloud's.
 */
function emptyBucket(environment, env) {
  if (typeof environment.bucket !== 'string' || environment.bucket === '') throw new Error('the check printed no bucket');
  const url = `gs://${environment.bucket}/**`;
  process.stdout.write(`${environment.line}\nEmptying ${url}\n`);
  return exitOf(spawnSync('gcloud', ['storage', 'rm', '--recursive', url], { cwd: ROOT, env, stdio: 'inherit' }));
}

/** How long the deploy waits for the first steps after the apply, seconds. */
export const UNTIL_STARTED_SECONDS = 300;

/** Stacks that are not pipelines: the cluster's and the serve stacks. */
const NOT_PIPELINES = /^(infra|serve-.+)$/;

/**
 * The pipeline stacks a deploy's arguments name: the positional stack names, without the value of a flag that takes
 * one (`--output <dir>`, `-o <dir>`, `--var-file <f>` ...: cdktf's flags given as `--flag value`), `infra`, serve
 * stacks and glob patterns (`'*'`: the wait is for named pipelines).
 */
export function pipelineStacks(args) {
  const withValue = new Set(['-o', '--output', '--var', '--var-file', '--parallelism', '--app', '-a']);
  const out = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.startsWith('-')) {
      if (withValue.has(a)) i += 1;
      continue;
    }
    if (!NOT_PIPELINES.test(a) && !/[*?]/.test(a)) out.push(a);
  }
  return [...new Set(out)];
}

/** The status command the deploy runs after the apply (node, the built status CLI, the pipelines, the bounded wait). */
export function untilStartedArgs(pipelines) {
  return [path.join(ROOT, 'dist', 'status', 'cli.js'), 'status', ...pipelines, '--until-started', String(UNTIL_STARTED_SECONDS), '--interval', '15'];
}

/**
 * The deploy's last line, from the exit status of `status --until-started` (status/cli.ts EXIT): only a first step
 * admitted or queued (0, 3) says the pipeline runs; a failed one (1), a first step not started in time (5: e.g. the
 * workflow engine never picked the Workflow up, which the status above says), an unreadable cluster (4) or a wait that
 * did not end by itself (undefined: Ctrl-C) say so.
 */
export function afterWaitLine(status, pipelines) {
  const follow = followCommand(pipelines);
  if (status === 0 || status === 3) return `The pipeline runs in the cluster; follow it with: ${follow}`;
  if (status === 1) return `A step has failed already (above); see it with: npm run status -- ${pipelines.join(' ')}`;
  if (status === 5) return `Deployed, but not started within ${UNTIL_STARTED_SECONDS / 60} minutes (why: above); follow it with: ${follow}`;
  if (status === 4) return `Deployed; the cluster could not be read to see it start (above); follow it with: ${follow}`;
  return `Deployed; whether it started is not known; follow it with: ${follow}`;
}

/** What to run to follow the pipelines. */
export function followCommand(pipelines) {
  return `npm run status -- ${pipelines.join(' ')} --watch`;
}

const MIGRATE_FLAG = '--migrate-state';

/** The check's last stdout line: `{"outdir": "cdktf.out.<project>.<cluster>", "line": "environment ..."}`. */
export function environmentOf(stdout) {
  const last = stdout.trim().split('\n').pop() ?? '';
  const parsed = JSON.parse(last);
  if (typeof parsed.outdir !== 'string' || typeof parsed.line !== 'string') throw new Error(`the check printed no environment: ${last}`);
  return parsed;
}

/** The arguments with `--output <outdir>` added, unless they name an output folder themselves (`-o`, `--output`). */
export function withOutput(args, outdir) {
  return args.some((a) => a === '-o' || a === '--output' || a.startsWith('--output=')) ? args : [...args, '--output', outdir];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(main(process.argv.slice(2)));
