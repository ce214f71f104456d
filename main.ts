/**
 * Entry point (cdktf.json runs the compiled dist/main.js): load the deployment -> build every stack -> synth.
 * Deploy one stack with `npm run deploy -- infra` or `npm run deploy -- <pipeline>`. `node dist/main.js --check` loads
 * and validates the deployment (where every config error is thrown) but builds no stack, writes nothing and prints
 * only errors (`npm run synth|diff|deploy|destroy` run it before the cdktf command, so a config error is printed once
 * and cdktf never starts; the stacks are built and synthesized once, by the app cdktf runs).
 *
 * The data flow, one way (docs/architecture.md draws it):
 *  1. `loadDeployment()` (config/deployment.ts), config/'s one entry:
 *     a. config/load.ts reads CONFIG_FILE (default config/example.json) and the environment, validates them with the
 *        zod schema (config/schema.ts) and records where every value came from (`TOPOLOGY (env)`, `<file>: tpu.topology`);
 *     b. config/platform.ts turns the TPU settings into the Platform (jobs/platform.ts `derivePlatform`: every shared
 *        name, the slice groups and their capacity) and the reservations each pool consumes;
 *     c. config/pipelines.ts selects the recipes whose slice the platform has and builds each one (jobs/pipeline.ts
 *        `buildPipeline`: manifests, MaxText's start-up checks), passing each option's source for its messages;
 *     d. the Kueue objects and quota (jobs/kueue.ts), the commands, the notified pipelines are derived, the settings cut
 *        into typed parts, and ONE frozen Deployment (jobs/deployment.ts) returned. Every config error is thrown here.
 *  2. `composeApp(deployment)` (stacks/app.ts) cuts it: `infra` gets platform, cluster, node pools, bucket,
 *     controllers, queues, state, preflight and notify; each pipeline stack its pipeline, the platform, state, endpoint.
 *  3. The stacks hand each part to the construct that owns it (constructs/); the cluster adds its pools
 *     (GkeCluster.addTpuSlicePool / addCpuPool). Nothing below this file imports config/ or asks it anything.
 *  4. `app.synth()` writes cdktf.out; the notices are printed here, one line each.
 *
 * Streams, as cdktf-cli 0.21 shows them (@cdktf/commons src/util.js `exec`/`shell`, src/logging.js): the app's stdout
 * is echoed as plain output, its stderr is logged at ERROR level (`[ERROR] default - ...`), and when the app fails
 * the CLI prints both again under "Command output on stdout/stderr". So notes go to stdout (never shown as errors) and
 * errors to stderr; `--check` prints a config error once, before the CLI runs the app (scripts/cdktf.mjs runs it for the npm scripts).
 */
import * as fs from 'fs';
import * as path from 'path';
import { loadDeployment } from './config/deployment';
import { escapeText } from './config/load';
import { ENVIRONMENT_FILE } from './jobs/deployment';
import type * as AppModule from './stacks/app';
import type * as MigrationModule from './stacks/state-migration';
import { environmentOutdir } from './jobs/state-names';

const check = process.argv.includes('--check');
const migrate = process.argv.indexOf('--migrate-state');
/** `--environment-outdir` (scripts/synth.mjs): synthesize into the environment's own folder, `cdktf.out.<project>.<cluster>`. */
const ownOutdir = process.argv.includes('--environment-outdir');

/** Where the synthesis of this process wrote (scripts/synth.mjs reads it; its manifest.json names the stacks). */
export let synthesized: { readonly outdir: string } | undefined;

/**
 * Runs `build` without error stacks. cdktf records a full stack trace for every token and nested block it creates
 * (lib/tokens/private/stack-trace.js sets Error.stackTraceLimit to MAX_SAFE_INTEGER and captures), only to say where a
 * token was made if it fails to resolve: walking and formatting those stacks was about a tenth of a synth's CPU. This
 * app prints an error's message, never its stack (below), and App's construct stack traces are off already
 * (stacks/app.ts), so while it builds and synthesizes no stack is captured: V8 reads Error.stackTraceLimit only as a
 * data property and captures nothing when it is an accessor (v8 src/execution/isolate.cc GetStackTraceLimit:
 * JSReceiver::GetDataProperty; seen on Node 20.20, 22.23 and 24.22), and the accessor drops cdktf's assignment; stacks that are captured anyway format as ''. cdktf then keeps an empty creation
 * stack. Both are restored after.
 */
function withoutStackTraces<T>(build: () => T): T {
  const previous = Error.prepareStackTrace;
  const limit = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit');
  Error.prepareStackTrace = () => '';
  Object.defineProperty(Error, 'stackTraceLimit', { configurable: true, enumerable: limit?.enumerable ?? true, get: () => 0, set: () => undefined });
  try {
    return build();
  } finally {
    Error.prepareStackTrace = previous;
    if (limit) Object.defineProperty(Error, 'stackTraceLimit', limit);
  }
}
try {
  if (migrate >= 0) process.exit(migrateStates(process.argv.slice(migrate + 1)));
  // Every config error is thrown here (config/deployment.ts); --check stops after it, so cdktf, which runs this app
  // again, builds and synthesizes the stacks once, and the check loads no cdktf or provider module.
  const deployment = loadDeployment();
  if (check && process.argv.includes('--print-environment')) {
    // scripts/cdktf.mjs reads this one line: the environment's own output folder (cdktf --output) and its origin.
    const { project, clusterName } = deployment.platform;
    // The bucket too: `npm run empty-bucket` empties this environment's own bucket, never one a shell variable names.
    const bucket = deployment.platform.bucket;
    process.stdout.write(`${JSON.stringify({ outdir: environmentOutdir({ project, clusterName }), line: deployment.origin.line, bucket })}\n`);
  }
  if (!check) {
    // Loaded after the check: stacks/ pulls in cdktf and the provider classes.
    const { composeApp } = require('./stacks/app') as typeof AppModule;
    withoutStackTraces(() => {
      const { project, clusterName } = deployment.platform;
      const { app, notices } = composeApp(deployment, ownOutdir ? { outdir: environmentOutdir({ project, clusterName }) } : {});
      // Which environment, built from which config file and variables; then the notices (unread tutorial variables,
      // pipelines left out, placeholders, tight fits): one line each, once.
      process.stdout.write(`${escapeText(deployment.origin.line, true)}\n`);
      for (const notice of notices) process.stdout.write(`note: ${escapeText(notice, true)}\n`);
      // What post-training.lock.json lacks (images by tag, revisions at run time): last, one line.
      if (deployment.lockNote) process.stdout.write(`note: ${escapeText(deployment.lockNote, true)}\n`);
      app.synth();
      // Beside manifest.json, for the review of this synthesis (review/cli.ts names it in its report).
      fs.writeFileSync(path.join(app.outdir, ENVIRONMENT_FILE), `${deployment.origin.line}\n`);
      synthesized = { outdir: app.outdir };
    });
  }
} catch (err) {
  // Config and recipe errors are for the user, not a stack trace: print the message, write nothing.
  process.stderr.write(`${escapeText(err instanceof Error ? err.message : String(err))}\n`);
  process.exit(1);
}

/**
 * `node dist/main.js --migrate-state [--dry-run] <stack>...` (scripts/cdktf.mjs runs it for `npm run deploy -- <stack>
 * --migrate-state`): moves each stack's state from the key before the upgrade to this environment's key
 * (stacks/state-migration.ts), or refuses; `--dry-run` prints the moves and the commands only. Exit 1 on a refusal.
 */
function migrateStates(args: readonly string[]): number {
  const { describeBackend, migrateState, migrationPlan, migrationSteps, runTerraform } = require('./stacks/state-migration') as typeof MigrationModule;
  const deployment = loadDeployment();
  const { project, clusterName } = deployment.platform;
  const scope = { project, clusterName };
  const dryRun = args.includes('--dry-run');
  const stacks = args.filter((a) => !a.startsWith('-'));
  const known = ['infra', ...deployment.pipelines.flatMap((p) => [p.name, ...(p.serve ? [p.serve.stack] : [])])];
  const unknown = stacks.filter((s) => !known.includes(s));
  if (stacks.length === 0 || unknown.length > 0) {
    process.stderr.write(`--migrate-state: name the stacks to move (${known.join(', ')})${unknown.length > 0 ? `, got '${unknown.join("', '")}'` : ''}\n`);
    return 1;
  }
  process.stdout.write(`${escapeText(deployment.origin.line, true)}\n`);
  const run = runTerraform;
  let failed = false;
  for (const stack of stacks) {
    const plan = migrationPlan(stack, scope, deployment.state);
    if (dryRun) {
      process.stdout.write(`${stack}: would move ${describeBackend(plan.from)} -> ${describeBackend(plan.to)}\n${migrationSteps(plan).map((l) => `  ${l}`).join('\n')}\n`);
      continue;
    }
    try {
      for (const line of migrateState(plan, scope, run)) process.stdout.write(`${line}\n`);
    } catch (err) {
      process.stderr.write(`${escapeText((err as Error).message)}\n`);
      failed = true;
    }
  }
  return failed ? 1 : 0;
}
