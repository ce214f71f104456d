/**
 * `npm run status [-- <pipeline>...] [--watch] [--interval <s>] [--json]`, `npm run status -- <pipeline> --report
 * [--out <file>]` (status/report.ts) and `npm run logs -- <pipeline> [step] [-f]`.
 *
 * Names, labels and totals come from the same config and builders the stacks use (config/pipelines.ts
 * buildPipelines); the cluster is the kubeconfig's current context (KUBECONFIG, else ~/.kube/config), as
 * `gcloud container clusters get-credentials` writes it. The entry module is the only place here that reads argv,
 * the environment or files.
 *
 * Exit status: 0 every step completed, 1 a step failed, 2 usage or config error, 3 still running, stalled, queued,
 * pending or not created, 4 no cluster answered.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Writable } from 'stream';
import { parseArgs, ParseArgsConfig } from 'util';
import type { KubeConfig } from '@kubernetes/client-node';
import { ConfigError, loadConfig } from '../config/load';
import { buildPipelines } from '../config/pipelines';
import { platformFromConfig } from '../config/platform';
import { MAIN_CONTAINER } from '../jobs/jobset';
import { PART_OF, Pipeline, PIPELINE_LABELS, STEP_NAMES, StepName } from '../jobs/pipeline';
import { credentialsCommand, findTpuGroup, Platform } from '../jobs/platform';
import { tpuRateFor } from '../review/cost';
import { loadPrices, money, RATE_TEXT, tpuRates } from '../review/prices';
import type { ChipPrice } from './metrics';
import { renderRunReport } from './report';
import type { Cluster, ClusterError } from './cluster';
import { defaultLogStep, exitCode, isDone, logRequests, mainPodOf, pipelineStatus, PipelineStatus } from './model';
import { renderText, toJson } from './render';

export const EXIT = { completed: 0, failed: 1, usage: 2, inProgress: 3, unreachable: 4 } as const;

/** Seconds between polls of `--watch`. */
export const DEFAULT_INTERVAL_SECONDS = 30;

const STATUS_USAGE = `usage: npm run status [-- <pipeline>...] [--watch] [--interval <seconds>] [--json]
       npm run status -- <pipeline> --report [--out <file>]

One line per pipeline step: not-created | queued | pending | running | stalled | completed | failed, with why
(Kueue's message and what holds the quota; the pod's reason and the fix; progress and ETA; a stall: no new
training step for max(10 min, 5x the median step time), the last step and how long ago; the failure and the last
log lines; the output paths). A training step also shows what it did: chip-hours from its Kueue admission and their
cost at the review's price table against the review's estimate, the loss trend, MaxText's evaluation before/after.

  <pipeline>          pipelines to show (default: every enabled pipeline)
  -w, --watch         redraw until every named pipeline completed or failed
  --interval <s>      seconds between polls with --watch (default ${DEFAULT_INTERVAL_SECONDS})
  --json              {"pipelines":[{"name","steps":[{"name","jobset","state","reason"?,"message"?,"progress"?,
                      "stall"?,"run"?}]}]} (one document per line with --watch); run: chips, admittedAt, endedAt?,
                      chipHours, cost?, currency?, rate?, estimate {chipHours, cost?}, loss [[step, loss]], evaluation?
  --report            write a Markdown run report of one pipeline (the whole training log read; an SVG chart of
                      the loss) and print its path
  --out <file>        where --report writes (default run-report-<pipeline>-<run id>.md)
  -h, --help          this text

Exit status: 0 all completed, 1 a step failed, 2 usage, 3 still running/stalled/queued/pending/not created,
4 no cluster answered.
`;

const LOGS_USAGE = `usage: npm run logs -- <pipeline> [step] [-f]

The main container (${MAIN_CONTAINER}) of the step's main pod (the Pathways head / job 0, completion index 0).

  <pipeline>          the pipeline (stack) name
  [step]              ${STEP_NAMES.join(' | ')} (default: the running step, else the last one created)
  -f, --follow        follow the log until the container ends
  -h, --help          this text
`;

class UsageError extends Error {}

/** The streams and environment the CLI uses (tests and the bench pass their own). */
export interface Io {
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable;
  readonly env: Readonly<Record<string, string | undefined>>;
}

function parse<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message.split('. To specify')[0]);
  }
}

interface Setup {
  readonly pipelines: Pipeline[];
  readonly platform: Platform;
  readonly dnsEndpoint: boolean;
}

function setup(env: Io['env']): Setup {
  const loaded = loadConfig({ env });
  const platform = platformFromConfig(loaded);
  return { pipelines: buildPipelines(loaded, platform), platform, dnsEndpoint: loaded.config.controlPlane.dnsEndpoint };
}

function pick(all: Pipeline[], names: string[]): Pipeline[] {
  const unknown = names.filter((n) => !all.some((p) => p.name === n));
  if (unknown.length > 0) {
    throw new UsageError(`no enabled pipeline named ${unknown.map((n) => `'${n}'`).join(', ')}; pipelines: ${all.map((p) => p.name).join(', ')}`);
  }
  return names.length === 0 ? all : names.map((n) => all.find((p) => p.name === n)!);
}

/** The pipelines' label selector: `app.kubernetes.io/part-of=tpu-post-training,tpu-post-training/pipeline in (a,b)`. */
export function pipelinesSelector(pipelines: readonly Pipeline[]): string {
  return `${PIPELINE_LABELS.partOf}=${PART_OF},${PIPELINE_LABELS.pipeline} in (${pipelines.map((p) => p.labels[PIPELINE_LABELS.pipeline]).join(',')})`;
}

function kubeconfigPaths(env: Io['env']): string[] {
  if (env.KUBECONFIG) return env.KUBECONFIG.split(path.delimiter).filter((f) => f !== '');
  return [path.join(env.HOME ?? os.homedir(), '.kube', 'config')];
}

function fixLine(s: Setup): string {
  const p = s.platform;
  return `Fetch the credentials of the cluster this config deploys (${p.clusterName}), then retry:\n  ${credentialsCommand(p.clusterName, p.region, p.project, s.dnsEndpoint)}\n`;
}

async function connect(io: Io, s: Setup): Promise<{ cluster: Cluster; context: string; server: string; kc: KubeConfig }> {
  const files = kubeconfigPaths(io.env);
  const missing = files.filter((f) => !fs.existsSync(f));
  if (missing.length === files.length) {
    throw new NoCluster(`no kubeconfig: ${io.env.KUBECONFIG ? `KUBECONFIG=${io.env.KUBECONFIG}` : files[0]} does not exist.\n${fixLine(s)}`);
  }
  const k8s = await import('@kubernetes/client-node');
  const { Cluster: ClusterClass } = await import('./cluster');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(files.find((f) => fs.existsSync(f))!);
  for (const extra of files.filter((f) => fs.existsSync(f)).slice(1)) {
    const more = new k8s.KubeConfig();
    more.loadFromFile(extra);
    kc.mergeConfig(more);
  }
  const cluster = new ClusterClass(kc);
  let target;
  try {
    target = cluster.target();
  } catch (err) {
    throw new NoCluster(`${(err as Error).message} (${files.join(path.delimiter)}).\n${fixLine(s)}`);
  }
  return { cluster, kc, ...target };
}

class NoCluster extends Error {}

function noAnswer(err: ClusterError, context: string, server: string, s: Setup): NoCluster {
  if (err.kind === 'api') {
    // The cluster answered, but not as a cluster with this project's controllers would (e.g. 404: no JobSet/Kueue CRD).
    return new NoCluster(`the cluster at ${server} (kubeconfig context ${context}) answered: ${err.message}\nIs infra deployed there (JobSet and Kueue)? cdktf deploy infra\n`);
  }
  const looksRight = context.includes(s.platform.clusterName);
  const hint = looksRight ? '' : `(the current context does not name the config's cluster ${s.platform.clusterName})\n`;
  const what = { unreachable: 'no answer from the cluster', auth: 'the cluster refused the credentials', plugin: 'no credentials for the cluster' }[err.kind];
  return new NoCluster(`${what} at ${server} (kubeconfig context ${context}): ${err.message}\n${hint}${fixLine(s)}`);
}

/** The price of a pipeline's chips: the review's price table (review/prices.json) at the rate of its pool's capacity. */
export function chipPrices(platform: Platform): (p: Pipeline) => ChipPrice {
  const prices = loadPrices();
  return (p) => {
    const capacity = findTpuGroup(platform, p.slice.machineType, p.slice.topology)?.capacity.type ?? 'on-demand';
    const { rate } = tpuRateFor({ capacity }, prices);
    const row = tpuRates(prices, p.slice.acceleratorType)?.[rate];
    return { rate: RATE_TEXT[rate], chipHour: row?.chipHour, estimate: row?.estimate, currency: prices.currency, money: (n) => money(prices, n) };
  };
}

async function poll(cluster: Cluster, s: Setup, chosen: Pipeline[], now: () => number, full = false): Promise<PipelineStatus[]> {
  const namespace = s.platform.namespace;
  const snapshot = await cluster.snapshot(namespace, pipelinesSelector(chosen));
  const logs = await cluster.readLogs(namespace, logRequests(chosen, snapshot, { full }));
  const ctx = { project: s.platform.project, hfTokenSecretId: s.platform.hfTokenSecretId, clusterQueue: s.platform.clusterQueue, now: now(), price: chipPrices(s.platform) };
  return chosen.map((p) => pipelineStatus(p, snapshot, logs, ctx));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function status(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, {
    watch: { type: 'boolean', short: 'w' },
    json: { type: 'boolean' },
    interval: { type: 'string' },
    report: { type: 'boolean' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(STATUS_USAGE);
    return EXIT.completed;
  }
  let intervalSeconds = DEFAULT_INTERVAL_SECONDS;
  if (values.interval !== undefined) {
    const n = Number(values.interval);
    if (!(Number.isInteger(n) && n >= 1)) throw new UsageError(`--interval must be a whole number of seconds >= 1, got '${String(values.interval)}'`);
    if (!values.watch) throw new UsageError('--interval only applies with --watch');
    intervalSeconds = n;
  }
  if (values.out !== undefined && !values.report) throw new UsageError('--out only applies with --report');
  if (values.report && (values.watch || values.json)) throw new UsageError('--report writes a file once: leave out --watch and --json');
  if (values.report && positionals.length !== 1) {
    throw new UsageError(`--report takes exactly one pipeline, got ${positionals.length === 0 ? 'none' : positionals.map((p) => `'${p}'`).join(' ')}`);
  }
  const s = setup(io.env);
  const chosen = pick(s.pipelines, positionals);
  const { cluster, context, server } = await connect(io, s);
  if (values.report) {
    let statuses: PipelineStatus[];
    try {
      statuses = await poll(cluster, s, chosen, Date.now, true);
    } catch (err) {
      throw noAnswer(err as ClusterError, context, server, s);
    }
    const file = path.resolve(values.out ?? `run-report-${chosen[0]!.name}-${chosen[0]!.runId}.md`);
    fs.writeFileSync(file, renderRunReport(statuses[0]!, { generatedAt: Date.now(), cluster: `cluster ${context} (${server}), namespace ${s.platform.namespace}` }));
    io.stdout.write(`${file}\n`);
    return exitCode(statuses);
  }
  const header = `cluster ${context} (${server}), namespace ${s.platform.namespace}`;
  if (!values.json) io.stdout.write(`${header}\n`);
  const tty = Boolean(io.stdout.isTTY) && !values.json;
  for (let first = true; ; first = false) {
    let statuses: PipelineStatus[];
    try {
      statuses = await poll(cluster, s, chosen, Date.now);
    } catch (err) {
      const e = err as ClusterError;
      if (first || !values.watch) throw noAnswer(e, context, server, s);
      io.stderr.write(`status: ${new Date().toISOString()}: ${e.message}; retrying in ${intervalSeconds}s\n`);
      await sleep(intervalSeconds * 1000);
      continue;
    }
    if (values.json) io.stdout.write(`${JSON.stringify(toJson(statuses))}\n`);
    else {
      if (tty && !first) io.stdout.write(`\x1b[H\x1b[2J${header}\n`);
      else if (!first) io.stdout.write(`\n${header}\n`);
      if (values.watch) io.stdout.write(`${new Date().toISOString()}\n`);
      io.stdout.write(renderText(statuses));
    }
    if (!values.watch || statuses.every(isDone)) return exitCode(statuses);
    await sleep(intervalSeconds * 1000);
  }
}

async function logs(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, { follow: { type: 'boolean', short: 'f' }, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    io.stdout.write(LOGS_USAGE);
    return EXIT.completed;
  }
  if (positionals.length < 1 || positionals.length > 2) {
    throw new UsageError(`expected <pipeline> [step], got ${positionals.length === 0 ? 'nothing' : positionals.map((p) => `'${p}'`).join(' ')}`);
  }
  const [name, stepName] = positionals;
  if (stepName !== undefined && !(STEP_NAMES as readonly string[]).includes(stepName)) {
    throw new UsageError(`step must be one of ${STEP_NAMES.join(', ')}, got '${stepName}'`);
  }
  const s = setup(io.env);
  const [pipeline] = pick(s.pipelines, [name]);
  const { cluster, context, server } = await connect(io, s);
  try {
    const snapshot = await cluster.snapshot(s.platform.namespace, pipelinesSelector([pipeline]));
    const step = stepName ? pipeline.steps.find((st) => st.name === (stepName as StepName))! : defaultLogStep(pipeline, snapshot);
    if (!step) {
      io.stderr.write(`logs: no step of ${pipeline.name} was created yet (cdktf deploy ${pipeline.name})\n`);
      return EXIT.inProgress;
    }
    const pod = mainPodOf(step, snapshot.pods);
    if (!pod?.metadata.name) {
      io.stderr.write(`logs: ${step.jobSetName} has no main pod yet; npm run status -- ${pipeline.name} says why\n`);
      return EXIT.inProgress;
    }
    io.stderr.write(`==> ${pipeline.name} ${step.name}: pod ${pod.metadata.name}, container ${MAIN_CONTAINER}\n`);
    if (!(await cluster.hasLog(s.platform.namespace, pod.metadata.name, MAIN_CONTAINER))) {
      io.stderr.write(`logs: ${MAIN_CONTAINER} of ${pod.metadata.name} has not started yet; npm run status -- ${pipeline.name} says why\n`);
      return EXIT.inProgress;
    }
    await cluster.streamLog(s.platform.namespace, pod.metadata.name, MAIN_CONTAINER, io.stdout, Boolean(values.follow));
    return EXIT.completed;
  } catch (err) {
    if ((err as Error).name === 'ClusterError') throw noAnswer(err as ClusterError, context, server, s);
    throw err;
  }
}

/** Runs `status <args>` or `logs <args>`; resolves to the exit status. */
export async function main(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  const [command, ...rest] = argv;
  const name = command === 'logs' ? 'logs' : 'status';
  try {
    if (command === 'status') return await status(rest, io);
    if (command === 'logs') return await logs(rest, io);
    throw new UsageError(`the first argument must be 'status' or 'logs', got '${command ?? ''}'`);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`${name}: ${err.message}\n${name === 'logs' ? LOGS_USAGE : STATUS_USAGE}`);
      return EXIT.usage;
    }
    if (err instanceof ConfigError) {
      io.stderr.write(`${name}: ${err.message}\n`);
      return EXIT.usage;
    }
    if (err instanceof NoCluster) {
      io.stderr.write(`${name}: ${err.message}`);
      return EXIT.unreachable;
    }
    const message = (err as Error).message ?? String(err);
    io.stderr.write(`${name}: ${message}\n`);
    return EXIT.usage;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
