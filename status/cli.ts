/**
 * `npm run status [-- <pipeline>...] [--watch] [--interval <s>] [--json]`, `npm run status -- <pipeline> --report
 * [--out <file>]` (status/report.ts) and `npm run logs -- <pipeline> [step] [-f]`.
 *
 * What is deployed comes from the cluster itself: each pipeline stack records its steps, JobSet names, run, paths
 * and deployment hash in a ConfigMap (jobs/record.ts), read here first; the local config (config/deployment.ts
 * loadDeployment) fills in pipelines not deployed yet, and a line says where it disagrees with the cluster. The
 * cluster is the kubeconfig's current context (KUBECONFIG, else ~/.kube/config), as `gcloud container clusters
 * get-credentials` writes it, or `--context`. The entry module is the only place here that reads argv, the
 * environment or files.
 *
 * Exit status: 0 every step completed, 1 a step failed, 2 usage or config error, 3 still running, stalled, queued,
 * pending or not created, 4 no usable answer from the cluster (unreachable or silent past the request timeout, credentials
 * missing or refused, permission denied, a server error).
 *
 * Every request has a deadline (--timeout, default 10 s; a poll is two rounds of requests, so a silent endpoint
 * ends in about 20 s), and everything printed passes the review's redaction (util/redact.ts).
 */
import { ARGO_SERVER, argoUiCommand } from '../jobs/argo';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Writable } from 'stream';
import { parseArgs, ParseArgsConfig } from 'util';
import type { KubeConfig } from '@kubernetes/client-node';
import { ConfigError, findRepoRoot } from '../config/load';
import { loadDeployment } from '../config/deployment';
import { MAIN_CONTAINER } from '../jobs/jobset';
import { PART_OF, PIPELINE_LABELS, STEP_NAMES } from '../jobs/pipeline';
import type { PlaceholderRef, Platform } from '../jobs/platform';
import { parseRecord, PipelineRecord, RecordedStep, recordName } from '../jobs/record';
import { cpuHourly, loadPrices, money, RATE_TEXT, tpuRateFor, tpuRates } from '../jobs/prices';
import { redact } from '../util/redact';
import { stripControls } from '../util/inert';
import { BoundExceeded, readBounded } from '../util/bounded-read';
import type { ChipPrice } from './metrics';
import type { CostRates } from './run-cost';
import { renderRunReport } from './report';
import { renderHtmlReport, PlotLibrary } from './html-report';
import type { Cluster, ClusterError } from './cluster';
import { defaultLogStep, exitCode, isDone, logRequests, mainPodOf, pipelineStatus, PipelineStatus } from './model';
import { renderText, toJson } from './render';
import { dashboardUrl } from '../jobs/dashboard';
import { renderServe, ServeSnapshot, serveExit, serveStatus } from './serve';
import { gcloudToken, GCS_ENDPOINT, gcsLister, gcsReader } from './bucket';
import { gcsDownloader, gcsPrefixLister, MAX_GOODPUT_FILE_BYTES, syncEventFiles, tensorboardDir } from './tensorboard';
import type { GoodputReaders } from './goodput';
import { RECORDS_GOODPUT } from '../jobs/goodput';
import { ObjectReader, withEvalFiles } from './eval';
import { rehearsalBeforeApply, withRehearsalRecords } from './rehearsal';
import { retryWorkflowRequest, retryLines, startPortForward } from './retry';
import { engineView, pipelineWorkflowOf } from './workflow';
import { withDownloadedCommits } from './run-record';
import { SERVE_LABEL, SERVE_STACK_PREFIX as SERVE_PREFIX, serveNames } from '../jobs/serve';

/** notStarted: only `--until-started` whose time ran out before every named pipeline's first step was admitted or queued. */
export const EXIT = { completed: 0, failed: 1, usage: 2, inProgress: 3, unreachable: 4, notStarted: 5 } as const;

/** Seconds between polls of `--watch`. */
export const DEFAULT_INTERVAL_SECONDS = 30;

/** Seconds one request may take (credential plugin included). */
export const DEFAULT_TIMEOUT_SECONDS = 10;

/** The longest wait between retries of `--watch` after errors (the interval doubles per failed poll up to this). */
export const MAX_BACKOFF_SECONDS = 300;

/** Where `--report` writes by default, under the repository root (ignored by git: .gitignore `reports/`). */
export const REPORTS_DIR = 'reports/runs';

const STATUS_USAGE = `usage: npm run status [-- <pipeline>...] [--watch | --until-started <seconds>] [--interval <seconds>] [--json] [--lineage] [--goodput]
       npm run status -- <pipeline> --report [--out <file>]
       npm run status -- serve-<pipeline>... [--json]
       node dist/status/cli.js rehearsal-check <pipeline>...   (what npm run deploy runs before its apply: whether a
       passing rehearsal of exactly this combination exists, from the bucket's listing; no cluster)

One line per pipeline step: not-created | queued | pending | running | stalled | completed | failed, with why
(Kueue's message and what holds the quota; the pod's reason and the fix; progress and ETA; a stall: no new
training step for max(10 min, 5x the median step time), the last step and how long ago; the failure and the last
log lines; the output paths). A training step also shows what it did: chip-hours from its Kueue admission and their
cost at the review's price table against the review's estimate, the loss trend, MaxText's evaluation before/after.

  <pipeline>          pipelines to show (default: every enabled pipeline)
  rehearse-<pipeline> a pipeline's rehearsal (npm run deploy -- rehearse-<pipeline>): its steps and its verdict,
                      passed | failed | running | not-deployed, from the record its Workflow wrote to the bucket when
                      there; exit 0 passed, 1 failed, 3 otherwise
  serve-<pipeline>    a serve stack instead: ready | starting | failing | not-deployed, why, the model path it
                      serves, the endpoint (and internal load balancer), the smoke test, the port-forward command;
                      --json: {"serve":[{"stack","pipeline","state","reason","ready","modelPath"?,"servedModelName"?,
                      "endpoint"?,"internalAddress"?,"smoke","portForward"?}]}; exit 0 ready, 1 failing, 3 otherwise
  --namespace <ns>    read the records (and the pipelines) of this namespace only (default: every namespace the
                      credentials can list, else the local config's)
  -w, --watch         redraw until every named pipeline completed or failed
  --until-started <s> poll until every named pipeline's first step is admitted or queued by Kueue (or further, or
                      failed), at most <s> seconds (1-3600); what \`npm run deploy\` runs after a pipeline's apply:
                      exit 5 when the time ran out first
  --interval <s>      seconds between polls with --watch or --until-started (default ${DEFAULT_INTERVAL_SECONDS})
  --json              {"pipelines":[{"name","steps":[{"name","jobset","state","reason"?,"message"?,"progress"?,
                      "stall"?,"run"?}],"cost"?}]} (one document per line with --watch); run: chips, admittedAt, endedAt?,
                      chipHours, cost?, currency?, rate?, estimate {chipHours, cost?}, loss [[step, loss]], evaluation?;
                      cost (the whole run): training?, eval? {chipHours, cost?, reserved}, cpu [{step, nodeHours, cost?}],
                      clusterFee {hours, cost}, total?, added? (beyond a reservation)
  --lineage           also read each completed step's run record in the bucket (gcloud login) and show the commits
                      it downloaded: the weights' and the tokenizer's (with its chat template); --json: "commits"
                      {weights?, tokenizer?} per step
  --goodput           also read the training run's TensorBoard folder in the bucket (gcloud login) and show the
                      goodput and badput by cause MaxText's goodput monitor wrote there (SFT and DPO trainers; RL
                      records none at MaxText 0.2.4): a line under the training step
  --report            write a Markdown run report of one pipeline (the whole training log read; an SVG chart of
                      the loss) and print its path
  --out <file>        where --report writes (default ${REPORTS_DIR}/run-report-<pipeline>-<run id>.md, gitignored)
  --context <name>    the kubeconfig context to read (default: its current context)
  --timeout <s>       seconds one request may take (default ${DEFAULT_TIMEOUT_SECONDS})
  -h, --help          this text

With --watch, errors after the first answer are retried (the wait doubles up to ${MAX_BACKOFF_SECONDS}s) and the view
is marked stale; it ends only when every named pipeline completed or failed, or on Ctrl-C.

Exit status: 0 all completed, 1 a step failed, 2 usage, 3 still running/stalled/queued/pending/not created,
4 no usable answer from the cluster (unreachable, silent, credentials, permission, server error).
`;

const LOGS_USAGE = `usage: npm run logs -- <pipeline> [step] [-f]

The main container (${MAIN_CONTAINER}) of the step's main pod (the Pathways head / job 0, completion index 0).

  <pipeline>          the pipeline (stack) name
  [step]              ${STEP_NAMES.join(' | ')} (default: the running step, else the last one created)
  -f, --follow        follow the log until the container ends
  --namespace <ns>    the namespace of the pipeline's record (default: every namespace the credentials can list)
  --context <name>    the kubeconfig context to read (default: its current context)
  --timeout <s>       seconds one request may take (default ${DEFAULT_TIMEOUT_SECONDS})
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
  /** The local config's pipelines, as the records their stacks write (jobs/record.ts). */
  readonly pipelines: readonly PipelineRecord[];
  /** The config file the local config came from (CONFIG_FILE, else config/example.json), for the notes. */
  readonly configFile: string;
  readonly platform: Platform;
  readonly dnsEndpoint: boolean;
  /** `gcloud container clusters get-credentials ...` for this cluster and endpoint (the deployment's). */
  readonly credentialsCommand: string;
  readonly authorizedCidrs: readonly string[];
  /** The local config's environment and what it was built from (jobs/deployment.ts EnvironmentOrigin.line). */
  readonly origin: string;
}

function setup(env: Io['env']): Setup {
  const { pipelines, records, platform, cluster, preflight, origin } = loadDeployment({ env });
  return {
    pipelines: pipelines.map((p) => records[p.name]!),
    configFile: env.CONFIG_FILE || 'config/example.json',
    platform,
    dnsEndpoint: cluster.dnsEndpoint,
    credentialsCommand: credentialsAdvice(cluster.credentialsCommand, preflight.placeholders),
    authorizedCidrs: cluster.authorizedCidrs,
    origin: origin.line,
  };
}

/**
 * The get-credentials command as advice: a project that is still the example config's placeholder is never printed as
 * the value to use; it becomes `--project=<your project>`, and the line says where the placeholder came from.
 */
export function credentialsAdvice(command: string, placeholders: readonly PlaceholderRef[]): string {
  const project = placeholders.find((p) => p.path === 'project');
  if (!project) return command;
  return `${command.replace(`--project=${project.value}`, '--project=<your project>')}   (the local config's project '${project.value}' is the example's placeholder: set ${project.env}, or CONFIG_FILE to your environment's config)`;
}

function timeoutMs(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_SECONDS * 1000;
  const n = Number(value);
  if (!(value.trim() !== '' && Number.isFinite(n) && n > 0 && n <= 600)) throw new UsageError(`--timeout must be a number of seconds in (0, 600], got '${value}'`);
  return Math.round(n * 1000);
}

/** What the cluster records as deployed (jobs/record.ts), and the records it could not read. */
export interface Deployed {
  readonly records: readonly PipelineRecord[];
  /** `<configmap>: <why>` for each record this version cannot read. */
  readonly unreadable: readonly string[];
  /** Where the records were looked up: `every namespace`, `namespace ml-team (--namespace)`, or the fallback. @default every namespace */
  readonly read?: string;
}

/**
 * Reads the record ConfigMaps: of `namespace` when given (--namespace), else of every namespace the credentials can
 * list; when they may not list ConfigMaps cluster-wide (403), of the local config's namespace, saying so.
 */
export async function deployedRecords(cluster: Cluster, namespace: string | undefined, fallback = 'default'): Promise<Deployed> {
  let maps: Awaited<ReturnType<Cluster['records']>>;
  let read = 'every namespace';
  if (namespace !== undefined) {
    maps = await cluster.records(namespace);
    read = `namespace ${namespace} (--namespace)`;
  } else {
    try {
      maps = await cluster.records();
    } catch (err) {
      if (!(err instanceof Error && (err as ClusterError).kind === 'forbidden')) throw err;
      maps = await cluster.records(fallback);
      read = `namespace ${fallback} only (the local config's: these credentials may not list ConfigMaps in every namespace; --namespace names another)`;
    }
  }
  const records: PipelineRecord[] = [];
  const unreadable: string[] = [];
  for (const m of maps) {
    const r = parseRecord(m.data);
    if (typeof r === 'string') unreadable.push(`${m.metadata?.name ?? '?'}: ${r}`);
    else records.push(r);
  }
  return { records: records.sort((a, b) => a.name.localeCompare(b.name)), unreadable, read };
}

/**
 * The pipelines to show: the cluster's records first (what is deployed), then the local config's for pipelines not
 * deployed; named ones in the order given. With no name: every deployed pipeline, or, when the cluster records none,
 * every pipeline the local config enables. Each disagreement between the local config and the cluster is one note.
 */
export function choose(s: Pick<Setup, 'pipelines' | 'configFile' | 'platform'>, deployed: Deployed, names: readonly string[]): { chosen: PipelineRecord[]; notes: string[] } {
  const byName = new Map<string, PipelineRecord>([...s.pipelines.map((p) => [p.name, p] as const), ...deployed.records.map((r) => [r.name, r] as const)]);
  const unknown = names.filter((n) => !byName.has(n));
  if (unknown.length > 0) {
    const inCluster = deployed.records.map((r) => r.name).join(', ') || 'none';
    const local = s.pipelines.map((p) => p.name).join(', ') || 'none';
    throw new UsageError(`no pipeline named ${unknown.map((n) => `'${n}'`).join(', ')} is deployed in the cluster (records: ${inCluster}) or enabled in the local config ${s.configFile} (${local})`);
  }
  const chosen = names.length > 0 ? names.map((n) => byName.get(n)!) : deployed.records.length > 0 ? [...deployed.records] : [...s.pipelines];
  const notes = deployed.unreadable.map((u) => `record ${u}; status reads that pipeline from the local config`);
  for (const r of chosen) {
    if (!deployed.records.includes(r)) continue;
    const local = s.pipelines.find((p) => p.name === r.name);
    const where = `record ${recordName(r.name)}`;
    if (r.project !== s.platform.project || r.cluster !== s.platform.clusterName) {
      notes.push(`${r.name} is deployed by cluster ${r.cluster} in project ${r.project} (${where}); the local config ${s.configFile} deploys cluster ${s.platform.clusterName} in project ${s.platform.project}: status shows what is deployed`);
    } else if (!local) {
      notes.push(`${r.name} is deployed (${where}) but not enabled in the local config ${s.configFile}: status shows what is deployed`);
    } else if (local.deploymentHash !== r.deploymentHash) {
      notes.push(
        `${r.name}: the local config ${s.configFile} differs from what is deployed (deployment ${r.deploymentHash.slice(0, 12)} in the cluster, ${local.deploymentHash.slice(0, 12)} here): ` +
          `status shows what is deployed; npm run diff -- ${r.name} shows the change`,
      );
    }
  }
  return { chosen, notes };
}

/** The pipelines' label selector: `app.kubernetes.io/part-of=tpu-post-training,tpu-post-training/pipeline in (a,b)`. */
export function pipelinesSelector(pipelines: readonly Pick<PipelineRecord, 'name'>[]): string {
  return `${PIPELINE_LABELS.partOf}=${PART_OF},${PIPELINE_LABELS.pipeline} in (${pipelines.map((p) => p.name).join(',')})`;
}

function kubeconfigPaths(env: Io['env']): string[] {
  if (env.KUBECONFIG) return env.KUBECONFIG.split(path.delimiter).filter((f) => f !== '');
  return [path.join(env.HOME ?? os.homedir(), '.kube', 'config')];
}

function fixLine(s: Setup): string {
  const p = s.platform;
  return `Fetch the credentials of the cluster this config deploys (${p.clusterName}), then retry:\n  ${s.credentialsCommand}\n`;
}

async function connect(io: Io, s: Setup, requestTimeoutMs: number, context?: string): Promise<{ cluster: Cluster; context: string; server: string; kc: KubeConfig }> {
  const files = kubeconfigPaths(io.env);
  const missing = files.filter((f) => !fs.existsSync(f));
  if (missing.length === files.length) {
    throw new NoCluster(`no kubeconfig: ${io.env.KUBECONFIG ? `KUBECONFIG=${io.env.KUBECONFIG}` : files[0]} does not exist.\n${fixLine(s)}`);
  }
  const k8s = await import('@kubernetes/client-node');
  const { Cluster: ClusterClass } = await import('./cluster');
  const kc = new k8s.KubeConfig();
  const present = files.filter((f) => fs.existsSync(f));
  loadKubeconfig(kc, present[0]!, requestTimeoutMs);
  for (const extra of present.slice(1)) {
    const more = new k8s.KubeConfig();
    loadKubeconfig(more, extra, requestTimeoutMs);
    kc.mergeConfig(more);
  }
  if (context !== undefined) {
    const names = kc.getContexts().map((c) => c.name);
    if (!names.includes(context)) {
      throw new NoCluster(`no context '${context}' in the kubeconfig (${files.join(path.delimiter)}); its contexts: ${names.join(', ') || 'none'}.\n${fixLine(s)}`);
    }
    kc.setCurrentContext(context);
  }
  const cluster = new ClusterClass(kc, { requestTimeoutMs });
  let target;
  try {
    target = cluster.target();
  } catch (err) {
    throw new NoCluster(`${(err as Error).message} (${files.join(path.delimiter)}).\n${fixLine(s)}`);
  }
  return { cluster, kc, ...target };
}

class NoCluster extends Error {}

/** The largest kubeconfig read (gcloud writes a few KB per cluster). */
export const MAX_KUBECONFIG_BYTES = 4 * 2 ** 20;
/** The largest certificate-authority, client-certificate or client-key file read. */
export const MAX_CREDENTIAL_FILE_BYTES = 2 ** 20;

/**
 * Loads a kubeconfig with every file read bounded in bytes and in time (--timeout): the kubeconfig itself and the
 * certificate-authority / client-certificate / client-key files it names, which @kubernetes/client-node would
 * otherwise read with readFileSync at the first request (a FIFO there blocks past any deadline; /dev/zero never
 * ends). The files' contents go into the config as data (caData, certData, keyData), so the client reads no file.
 */
function loadKubeconfig(kc: KubeConfig, file: string, timeoutMs: number): void {
  const read = (f: string, maxBytes: number, what: string): Buffer => {
    try {
      return readBounded(f, { maxBytes, limitName: what, timeoutMs, timeoutName: '--timeout' });
    } catch (error) {
      throw new NoCluster(`cannot read ${error instanceof BoundExceeded ? '' : `${f}: `}${(error as Error).message}\n`);
    }
  };
  kc.loadFromString(read(file, MAX_KUBECONFIG_BYTES, `the kubeconfig bound, ${MAX_KUBECONFIG_BYTES / 2 ** 20} MiB`).toString('utf8'));
  kc.makePathsAbsolute(path.dirname(file));
  const bound = `the credential file bound, ${MAX_CREDENTIAL_FILE_BYTES / 2 ** 20} MiB`;
  const asData = (f: string | undefined) => (f ? read(f, MAX_CREDENTIAL_FILE_BYTES, bound).toString('base64') : undefined);
  kc.clusters = kc.clusters.map((c) => (c.caFile ? { ...c, caData: asData(c.caFile), caFile: undefined } : c));
  kc.users = kc.users.map((u) =>
    u.certFile || u.keyFile
      ? { ...u, ...(u.certFile ? { certData: asData(u.certFile), certFile: undefined } : {}), ...(u.keyFile ? { keyData: asData(u.keyFile), keyFile: undefined } : {}) }
      : u);
}

/** What the credential plugin's failure asks for (its messages: kubernetes/cloud-provider-gcp cmd/gke-gcloud-auth-plugin). */
function pluginFix(message: string): string {
  if (/not installed/.test(message)) return 'Install it: gcloud components install gke-gcloud-auth-plugin, then retry.';
  // --use_application_default_credentials: "getting google default token failed ...: google: could not find default credentials"
  if (/default (token|credentials)|application[_ -]default/i.test(message)) {
    return 'The plugin uses Application Default Credentials and has none valid: gcloud auth application-default login, then retry.';
  }
  // gcloud path: "failure while executing gcloud, with args [config config-helper --format=json]", gcloud's own
  // "Reauthentication failed", "You do not currently have an active account selected", an empty or expired token.
  return 'The plugin gets its token from gcloud, which has no valid login: gcloud auth login, then retry.';
}

function noAnswer(err: ClusterError, context: string, server: string, s: Setup): NoCluster {
  const where = `${server} (kubeconfig context ${context})`;
  const p = s.platform;
  const looksRight = context.includes(p.clusterName);
  const hint = looksRight ? '' : `(the current context does not name the config's cluster ${p.clusterName})\n`;
  switch (err.kind) {
    case 'bound':
      // The cluster answered; what it sent is past a bound of this tool (not the network's fault).
      return new NoCluster(/^the log/.test(err.message) ? `the log from ${where} was cut: ${err.message}\n` : `the cluster at ${where} answered past a bound of this tool: ${err.message}\n`);
    case 'api':
      // The cluster answered, but not as a cluster with this project's controllers would (e.g. 404: no JobSet/Kueue CRD).
      return new NoCluster(`the cluster at ${where} answered: ${err.message}\n${hint}Is infra deployed there (JobSet and Kueue)? npm run deploy -- infra\n`);
    case 'server':
      return new NoCluster(`the cluster at ${where} failed: ${err.message}\nThe control plane may be upgrading or overloaded; retry in a few minutes (npm run status -- --watch retries by itself).\n`);
    case 'plugin':
      return new NoCluster(
        `no credentials for the cluster at ${where}: ${/not installed/.test(err.message) ? '' : 'the credential plugin failed: '}${err.message}\n${pluginFix(err.message)}\n`,
      );
    case 'auth':
      return new NoCluster(
        `the cluster refused the credentials at ${where}: ${err.message}\n${hint}` +
          `The token the plugin sent was not accepted: gcloud auth login (an expired or revoked login), then retry; if the cluster was re-created, fetch its credentials again:\n  ${s.credentialsCommand}\n`,
      );
    case 'forbidden':
      return new NoCluster(
        `the cluster at ${where} knows you but denies the request: ${err.message}\n` +
          `This is IAM, not credentials: ask a project admin for roles/container.viewer (read-only: enough for status and logs) or roles/container.developer on project ${p.project}:\n` +
          `  gcloud projects add-iam-policy-binding ${p.project} --member=user:<you> --role=roles/container.viewer\n`,
      );
    default: {
      // unreachable or timeout
      const cidrs = s.authorizedCidrs.length ? s.authorizedCidrs.join(', ') : '(none)';
      const cause =
        err.kind === 'timeout'
          ? s.dnsEndpoint
            ? `Likely cause: the endpoint accepts connections but never answers; with the DNS endpoint that is usually a network path (proxy, VPN) that drops it. Check that ${server} is the DNS endpoint get-credentials --dns-endpoint writes.`
            : `Likely cause: this machine's address is not in the control plane's allow-list (AUTHORIZED_CIDR: ${cidrs}); GKE drops such connections without an answer. ` +
              `Add your public IP to AUTHORIZED_CIDR and npm run deploy -- infra, or reach the cluster through its DNS endpoint (DNS_ENDPOINT=true, then get-credentials --dns-endpoint).`
          : err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN'
            ? `Likely cause: the name does not resolve from here${s.dnsEndpoint ? ' (the DNS endpoint needs public DNS)' : ''}; the kubeconfig may be stale.`
            : err.code === 'ECONNREFUSED'
              ? 'Likely cause: nothing listens there: the cluster was deleted or re-created, or the kubeconfig is stale.'
              : `Likely cause: no route to the control plane from here (allow-list AUTHORIZED_CIDR: ${cidrs}; DNS endpoint ${s.dnsEndpoint ? 'on' : 'off'}).`;
      return new NoCluster(`no answer from the cluster at ${where}: ${err.message}\n${hint}${cause}\n${fixLine(s)}`);
    }
  }
}

/**
 * The price of a step's chips: the review's price table (jobs/prices.json) at the rate of its pool's capacity; the
 * step's own pool (the eval step's single-host pool), else the pipeline's training slice.
 */
export function chipPrices(): (p: PipelineRecord, step?: RecordedStep) => ChipPrice {
  const prices = loadPrices();
  return (p, step) => {
    const pool = step?.tpuPool ?? { acceleratorType: p.slice.acceleratorType, capacity: p.capacity };
    const { rate } = tpuRateFor({ capacity: pool.capacity }, prices);
    const row = tpuRates(prices, pool.acceleratorType)?.[rate];
    return { rate: RATE_TEXT[rate], chipHour: row?.chipHour, estimate: row?.estimate, currency: prices.currency, money: (n) => money(prices, n) };
  };
}

/** The CPU-pool node price and the cluster fee of the whole run's cost (status/run-cost.ts), from the review's price table. */
export function costRates(): (p: PipelineRecord) => CostRates {
  const prices = loadPrices();
  return (p) => ({
    ...(cpuHourly(prices, p.cpuMachineType) !== undefined ? { cpuNodeHour: cpuHourly(prices, p.cpuMachineType) } : {}),
    clusterFeePerHour: prices.clusterManagementFeePerHour,
    money: (n) => money(prices, n),
  });
}

/** How poll reads what is not in the cluster: eval.json from the bucket (status/bucket.ts), and where its notes go. */
interface PollIo {
  readonly read: ObjectReader;
  /** The same, remembering what it read (a finished step's run record does not change). */
  readonly readOnce: ObjectReader;
  readonly note: (line: string) => void;
  /** The run's TensorBoard folder, for --goodput (status/goodput.ts). */
  readonly goodput: GoodputReaders;
}

async function poll(
  cluster: Cluster,
  s: Setup,
  chosen: PipelineRecord[],
  now: () => number,
  pio: PollIo,
  full = false,
  lineage = false,
  goodput = false,
): Promise<PipelineStatus[]> {
  // Each pipeline is read in the namespace its record names (a deployment's namespace may not be the local config's).
  const ctx = { clusterQueue: s.platform.clusterQueue, now: now(), price: chipPrices(), costRates: costRates() };
  const byName = new Map<string, PipelineStatus>();
  for (const namespace of [...new Set(chosen.map((p) => p.namespace))]) {
    const group = chosen.filter((p) => p.namespace === namespace);
    const snapshot = await cluster.snapshot(namespace, pipelinesSelector(group));
    const logs = await cluster.readLogs(namespace, logRequests(group, snapshot, { full }));
    for (const p of group) byName.set(p.name, pipelineStatus(p, snapshot, logs, ctx));
  }
  const evalFiles = new Map(chosen.map((p) => [p.name, p.steps.find((st) => st.name === 'eval')?.output]));
  const { statuses: evaluated, notes } = await withEvalFiles(chosen.map((p) => byName.get(p.name)!), evalFiles, pio.read);
  notes.forEach(pio.note);
  // A rehearsal's verdict from the record its Workflow wrote to the bucket, when there (status/rehearsal.ts).
  const rehearsed = await withRehearsalRecords(evaluated, new Map(chosen.map((p) => [p.name, p.rehearsal])), pio.readOnce);
  rehearsed.notes.forEach(pio.note);
  let result = rehearsed.statuses;
  if (lineage) {
    // The commits each completed step downloaded, from its run record (status/run-record.ts), read once per command.
    const downloaded = await withDownloadedCommits(result, new Map(chosen.map((p) => [p.name, p])), pio.readOnce);
    downloaded.notes.forEach(pio.note);
    result = downloaded.statuses;
  }
  if (goodput) {
    // The goodput MaxText's monitor wrote to the run's TensorBoard folder (status/goodput.ts), for trainers that record it.
    const runs = new Map(chosen.map((p) => [p.name, { trainRunDir: p.paths.trainRunDir, recordsGoodput: RECORDS_GOODPUT[p.trainKind] }]));
    // Loaded only here: status/goodput.ts brings protobufjs, which a plain status never needs.
    const { withGoodput } = await import('./goodput');
    const read = await withGoodput(result, runs, pio.goodput);
    read.notes.forEach(pio.note);
    result = read.statuses;
  }
  return result;
}

/** The bucket reader and a note printer that says each note once per command. */
function pollIo(io: Io, timeout: number): PollIo {
  const said = new Set<string>();
  const gcs = { endpoint: io.env.STORAGE_EMULATOR_HOST || GCS_ENDPOINT, token: gcloudToken(timeout), timeoutMs: timeout };
  const read = gcsReader(gcs);
  const got = new Map<string, ReturnType<ObjectReader>>();
  return {
    read,
    goodput: { list: gcsPrefixLister(gcs), download: gcsDownloader(gcs, MAX_GOODPUT_FILE_BYTES) },
    readOnce: (url) => {
      if (!got.has(url)) got.set(url, read(url).then((r) => (r.text === undefined && got.delete(url), r)));
      return got.get(url)!;
    },
    note: (line) => void (said.has(line) || (said.add(line), io.stderr.write(`note: ${line}\n`))),
  };
}

/** The pipelines to show (choose), from the cluster's records and the local config; each disagreement is a note on stderr. */
async function pipelinesToShow(io: Io, cluster: Cluster, s: Setup, names: readonly string[], context: string, server: string, namespace?: string): Promise<{ chosen: PipelineRecord[]; read: string }> {
  let deployed: Deployed;
  try {
    deployed = await deployedRecords(cluster, namespace, s.platform.namespace);
  } catch (err) {
    throw noAnswer(err as ClusterError, context, server, s);
  }
  const { chosen, notes } = choose(s, deployed, names);
  for (const n of notes) io.stderr.write(`note: ${n}\n`);
  return { chosen, read: deployed.read ?? 'every namespace' };
}

/** The first line of status: the cluster, the namespaces shown, where the records were read, and the local config. */
function headerOf(context: string, server: string, chosen: readonly PipelineRecord[], read: string, s: Setup): string {
  const shown = [...new Set(chosen.map((p) => p.namespace))];
  const namespaces = shown.length === 1 ? `namespace ${shown[0]}` : `namespaces ${shown.join(', ') || s.platform.namespace}`;
  return `cluster ${context} (${server}), ${namespaces} (records read from ${read}); local config: ${s.origin}`;
}

/**
 * `dashboard <console link>`, one line per project and cluster the shown pipelines are deployed by (their records; the
 * local config's when none): infra's Cloud Monitoring dashboard (jobs/dashboard.ts). A string, no request.
 */
export function dashboardLines(chosen: readonly Pick<PipelineRecord, 'project' | 'cluster'>[], s: Pick<Setup, 'platform'>): string {
  const urls = chosen.length > 0 ? chosen.map((p) => dashboardUrl(p.project, p.cluster)) : [dashboardUrl(s.platform.project, s.platform.clusterName)];
  return [...new Set(urls)].map((url) => `dashboard ${url}\n`).join('');
}

/** The pipelines of the `serve-<pipeline>` names given (a pipeline of the local config named serve-x is a pipeline). */
function serveNamesOf(s: Setup, names: readonly string[], options: { watch?: boolean; report?: boolean }): string[] {
  const isServe = (n: string) => n.startsWith(SERVE_PREFIX) && n.length > SERVE_PREFIX.length && !s.pipelines.some((p) => p.name === n);
  const serving = names.filter(isServe);
  if (serving.length === 0) return [];
  if (serving.length !== names.length) throw new UsageError(`name serve stacks or pipelines, not both: got ${names.map((n) => `'${n}'`).join(' ')}`);
  if (options.watch || options.report) throw new UsageError(`${serving[0]} is shown once: leave out --watch and --report`);
  return serving.map((n) => n.slice(SERVE_PREFIX.length));
}

/** `status -- serve-<pipeline>...`: endpoint, model path, readiness and smoke test of each (status/serve.ts). */
async function serveCommand(io: Io, cluster: Cluster, s: Setup, pipelines: readonly string[], json: boolean, context: string, server: string, given?: string): Promise<number> {
  const namespace = given ?? s.platform.namespace;
  let snapshot: ServeSnapshot;
  try {
    snapshot = await cluster.serving(namespace, `${SERVE_LABEL} in (${pipelines.map((p) => serveNames(p).name).join(',')})`);
  } catch (err) {
    throw noAnswer(err as ClusterError, context, server, s);
  }
  const statuses = pipelines.map((p) => serveStatus(p, namespace, snapshot));
  io.stdout.write(
    json ? `${JSON.stringify({ serve: statuses })}\n` : `cluster ${context} (${server}), namespace ${namespace}; local config: ${s.origin}\n${renderServe(statuses)}`,
  );
  return serveExit(statuses);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The longest `--until-started` allows, seconds: the deploy's short wait, not a watch. */
export const MAX_UNTIL_STARTED_SECONDS = 3600;

/** `--until-started <s>`: whole seconds, 1 to MAX_UNTIL_STARTED_SECONDS, not with --watch or --report. @default - not given */
export function untilStartedSeconds(value: string | undefined, withWatchOrReport: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(Number.isInteger(n) && n >= 1 && n <= MAX_UNTIL_STARTED_SECONDS)) {
    throw new UsageError(`--until-started must be a whole number of seconds from 1 to ${MAX_UNTIL_STARTED_SECONDS}, got '${value}'`);
  }
  if (withWatchOrReport) throw new UsageError('--until-started waits for the first step only: leave out --watch and --report');
  return n;
}

/**
 * A pipeline whose first step Kueue has admitted or queued: the first step's JobSet exists and is past `not-created`
 * (queued, pending, running, stalled, completed), or the pipeline ended (a step failed, or its Workflow ended before
 * creating one).
 */
export function firstStepStarted(p: PipelineStatus): boolean {
  if (isDone(p) || p.engine?.phase === 'Failed' || p.engine?.phase === 'Error') return true;
  return p.steps.length > 0 && p.steps[0]!.state !== 'not-created';
}

async function status(argv: string[], io: Io, format: 'md' | 'html' = 'md'): Promise<number> {
  const { values, positionals } = parse(argv, {
    watch: { type: 'boolean', short: 'w' },
    json: { type: 'boolean' },
    interval: { type: 'string' },
    timeout: { type: 'string' },
    report: { type: 'boolean' },
    lineage: { type: 'boolean' },
    goodput: { type: 'boolean' },
    'until-started': { type: 'string' },
    out: { type: 'string' },
    context: { type: 'string' },
    namespace: { type: 'string' },
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
    if (!values.watch && values['until-started'] === undefined) throw new UsageError('--interval only applies with --watch or --until-started');
    intervalSeconds = n;
  }
  const untilStarted = untilStartedSeconds(values['until-started'], Boolean(values.watch || values.report));
  const polling = Boolean(values.watch) || untilStarted !== undefined;
  const deadline = untilStarted !== undefined ? Date.now() + untilStarted * 1000 : Infinity;
  if (values.out !== undefined && !values.report) throw new UsageError('--out only applies with --report');
  if (values.report && (values.watch || values.json)) throw new UsageError('--report writes a file once: leave out --watch and --json');
  if (values.report && positionals.length !== 1) {
    throw new UsageError(`--report takes exactly one pipeline, got ${positionals.length === 0 ? 'none' : positionals.map((p) => `'${p}'`).join(' ')}`);
  }
  const requestTimeout = timeoutMs(values.timeout);
  const s = setup(io.env);
  const serving = serveNamesOf(s, positionals, values);
  const { cluster, context, server } = await connect(io, s, requestTimeout, values.context);
  if (serving.length > 0) return serveCommand(io, cluster, s, serving, Boolean(values.json), context, server, values.namespace);
  const { chosen, read } = await pipelinesToShow(io, cluster, s, positionals, context, server, values.namespace);
  const header = headerOf(context, server, chosen, read, s);
  const pio = pollIo(io, requestTimeout);
  if (values.report) {
    let statuses: PipelineStatus[];
    try {
      statuses = await poll(cluster, s, chosen, Date.now, pio, true, Boolean(values.lineage), Boolean(values.goodput));
    } catch (err) {
      throw noAnswer(err as ClusterError, context, server, s);
    }
    const file = values.out !== undefined ? path.resolve(values.out) : path.join(findRepoRoot(), REPORTS_DIR, `run-report-${chosen[0]!.name}-${chosen[0]!.runId}.${format}`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const options = { generatedAt: Date.now(), cluster: header };
    fs.writeFileSync(file, format === 'html' ? renderHtmlReport(redactStatus(statuses[0]!), { ...options, cluster: stripControls(redact(header)), plot: plotLibrary() }) : stripControls(redact(renderRunReport(statuses[0]!, options))));
    io.stdout.write(`${file}\n`);
    return exitCode(statuses);
  }
  if (!values.json) io.stdout.write(`${header}\n${dashboardLines(chosen, s)}`);
  const tty = Boolean(io.stdout.isTTY) && !values.json;
  let lastOk: string | undefined;
  let failures = 0;
  for (let first = true; ; first = false) {
    let statuses: PipelineStatus[];
    try {
      statuses = await poll(cluster, s, chosen, Date.now, pio, false, Boolean(values.lineage), Boolean(values.goodput));
    } catch (err) {
      const e = err as ClusterError;
      // The first poll decides whether the cluster can be read at all: its failure ends the command (exit 4).
      if (lastOk === undefined || !polling) throw noAnswer(e, context, server, s);
      // --watch: keep the last view, mark it stale, retry with backoff; only a terminal state or Ctrl-C ends it.
      failures += 1;
      const wait = Math.min(intervalSeconds * 2 ** (failures - 1), Math.max(intervalSeconds, MAX_BACKOFF_SECONDS));
      const why = noAnswer(e, context, server, s).message.split('\n')[0];
      io.stderr.write(`status: ${new Date().toISOString()}: view stale since ${lastOk} (${failures} failed poll(s)): ${why}; retrying in ${wait}s\n`);
      if (tty) {
        io.stdout.write(TTY.markStale);
        io.stdout.write(` STALE since ${lastOk}: retrying in ${wait}s `);
        io.stdout.write(TTY.endStale);
      }
      await sleep(wait * 1000);
      continue;
    }
    failures = 0;
    lastOk = new Date().toISOString();
    if (values.json) io.stdout.write(`${JSON.stringify(toJson(statuses, { cluster: context, server, recordsReadFrom: read, localConfig: s.origin }))}\n`);
    else {
      if (tty && !first) {
        io.stdout.write(TTY.clear);
        io.stdout.write(`${header}\n`);
      }
      else if (!first) io.stdout.write(`\n${header}\n`);
      if (values.watch) io.stdout.write(`${lastOk}\n`);
      io.stdout.write(renderText(statuses));
    }
    if (untilStarted !== undefined) {
      if (statuses.every(firstStepStarted)) return exitCode(statuses);
      if (Date.now() + intervalSeconds * 1000 > deadline) {
        io.stdout.write(`not admitted or queued yet after ${untilStarted}s: ${statuses.filter((p) => !firstStepStarted(p)).map((p) => p.name).join(', ')}\n`);
        return EXIT.notStarted;
      }
    } else if (!values.watch || statuses.every(isDone)) return exitCode(statuses);
    await sleep(intervalSeconds * 1000);
  }
}

async function logs(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, {
    follow: { type: 'boolean', short: 'f' },
    timeout: { type: 'string' },
    context: { type: 'string' },
    namespace: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
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
  const requestTimeout = timeoutMs(values.timeout);
  const s = setup(io.env);
  const { cluster, context, server } = await connect(io, s, requestTimeout, values.context);
  const { chosen: [pipeline] } = await pipelinesToShow(io, cluster, s, [name], context, server, values.namespace);
  try {
    const snapshot = await cluster.snapshot(pipeline!.namespace, pipelinesSelector([pipeline!]));
    const step = stepName ? pipeline.steps.find((st) => st.name === stepName) : defaultLogStep(pipeline, snapshot);
    if (!step) {
      io.stderr.write(`logs: no step of ${pipeline.name} was created yet (npm run deploy -- ${pipeline.name})\n`);
      return EXIT.inProgress;
    }
    const pod = mainPodOf(step, snapshot.pods);
    if (!pod?.metadata.name) {
      io.stderr.write(`logs: ${step.jobSetName} has no main pod yet; npm run status -- ${pipeline.name} says why\n`);
      return EXIT.inProgress;
    }
    io.stderr.write(`==> ${pipeline.name} ${step.name}: pod ${pod.metadata.name}, container ${MAIN_CONTAINER}\n`);
    if (!(await cluster.hasLog(pipeline!.namespace, pod.metadata.name, MAIN_CONTAINER))) {
      io.stderr.write(`logs: ${MAIN_CONTAINER} of ${pod.metadata.name} has not started yet; npm run status -- ${pipeline.name} says why\n`);
      return EXIT.inProgress;
    }
    await cluster.streamLog(pipeline!.namespace, pod.metadata.name, MAIN_CONTAINER, io.stdout, Boolean(values.follow));
    return EXIT.completed;
  } catch (err) {
    if ((err as Error).name === 'ClusterError') throw noAnswer(err as ClusterError, context, server, s);
    throw err;
  }
}

/**
 * The terminal sequences `status --watch` writes itself, each as a write of its own: the redacting stream passes a
 * write that is exactly one of these and strips every control from anything else (text from the cluster cannot make
 * a write of its own: it is always inside a longer one).
 */
const TTY = {
  /** save the cursor, go to the top-left corner, reverse video */
  markStale: '\x1b[s\x1b[1;1H\x1b[7m',
  /** normal video, restore the cursor */
  endStale: '\x1b[0m\x1b[u',
  /** cursor home, clear the screen */
  clear: '\x1b[H\x1b[2J',
} as const;
const OWN_SEQUENCES: ReadonlySet<string> = new Set(Object.values(TTY));

/**
 * A stream that writes everything through the shared redaction (util/redact.ts) and without terminal control
 * sequences (util/inert.ts stripControls: a cluster message cannot clear the screen or write the clipboard), but for
 * the program's own (TTY).
 */
function redacting(out: Io['stdout']): Io['stdout'] {
  const w = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const text = chunk.toString();
      out.write(OWN_SEQUENCES.has(text) ? text : stripControls(redact(text)), done);
    },
  }) as Io['stdout'];
  w.isTTY = out.isTTY;
  return w;
}

/**
 * `npm run workflows-ui`: how to open the workflow engine's UI (argo-server, a ClusterIP Service only, jobs/argo.ts) on
 * localhost. It runs nothing itself: the port-forward holds a terminal, and the UI signs in with the caller's own
 * token (authModes client), the access token gcloud prints.
 */
function workflowsUi(io: Io): number {
  const { platform, credentialsCommand } = setup(io.env);
  io.stdout.write(
    `The Argo Workflows UI of the pipelines (namespace ${platform.namespace}) is not exposed; open it on localhost:\n` +
      `  ${credentialsCommand}\n` +
      `  ${argoUiCommand()}\n` +
      `then browse http://localhost:${ARGO_SERVER.port} (chart value server.secure false: plain HTTP inside the tunnel) and paste as the token: Bearer $(gcloud auth print-access-token)\n`,
  );
  return 0;
}

/**
 * `rehearsal-check <pipeline>...` (what `npm run deploy` runs before its apply, scripts/cdktf.mjs): one line per
 * pipeline, whether a passing rehearsal of exactly this combination exists (status/rehearsal.ts rehearsalBeforeApply).
 * Reads the bucket only (the user's gcloud login), never the cluster. Exit 0 unless the arguments are wrong: the
 * deploy goes on whatever it says (`requireRehearsal` is the plan's to refuse).
 */
async function rehearsalCheck(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, { timeout: { type: 'string' } });
  const requestTimeout = timeoutMs(values.timeout);
  const { pipelines, preflight } = loadDeployment({ env: io.env });
  if (positionals.length === 0) throw new UsageError('rehearsal-check takes the pipelines to check, got none');
  for (const n of positionals.filter((x) => !pipelines.some((p) => p.name === x))) io.stdout.write(`Rehearsal of ${n}: not known (not a pipeline this config builds)\n`);
  const chosen = pipelines.filter((p) => positionals.includes(p.name));
  if (preflight.placeholders.length > 0) {
    for (const p of chosen) io.stdout.write(`Rehearsal of ${p.name}: not known before the apply (the config still has placeholders: ${preflight.placeholders.map((x) => x.env).join(', ')})\n`);
    return EXIT.completed;
  }
  const list = gcsLister({ endpoint: io.env.STORAGE_EMULATOR_HOST || GCS_ENDPOINT, token: gcloudToken(requestTimeout), timeoutMs: requestTimeout });
  for (const line of await rehearsalBeforeApply(chosen, list)) io.stdout.write(`${line}\n`);
  return EXIT.completed;
}

const RETRY_USAGE = `usage: npm run retry -- <pipeline> [--context <name>] [--timeout <seconds>]

Resumes a pipeline whose Workflow ended Failed or Error from the step that failed, with Argo Workflows' own retry
(argo-server PUT /api/v1/workflows/<namespace>/<name>/retry, what the UI's RETRY button and \`argo retry\` do): the
failed tasks run again, every finished step is kept and never re-run. It reaches the engine as npm run workflows-ui
does (kubectl port-forward to the argo-server Service, your gcloud access token). Exit 0 retried, 1 refused, 3 nothing
to retry (the Workflow runs or succeeded), 4 the cluster did not answer.
`;

/**
 * \`npm run retry -- <pipeline>\`: Argo's retry of the pipeline's failed Workflow (status/retry.ts), from the step that
 * failed. A run id would start from scratch; this keeps every step that finished.
 */
async function retry(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, { timeout: { type: 'string' }, context: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    io.stdout.write(RETRY_USAGE);
    return EXIT.completed;
  }
  const s = setup(io.env);
  if (positionals.length !== 1) throw new UsageError(`retry takes one pipeline, got ${positionals.length === 0 ? 'none' : positionals.map((p) => `'${p}'`).join(' ')}`);
  const pipeline = s.pipelines.find((p) => p.name === positionals[0]);
  if (!pipeline) throw new UsageError(`no pipeline named '${positionals[0]}' in this config; pipelines: ${s.pipelines.map((p) => p.name).join(', ')}`);
  const requestTimeout = timeoutMs(values.timeout);
  const { cluster, context, server } = await connect(io, s, requestTimeout, values.context);
  let snapshot;
  try {
    snapshot = await cluster.snapshot(pipeline.namespace, pipelinesSelector([pipeline]));
  } catch (err) {
    throw noAnswer(err as ClusterError, context, server, s);
  }
  const wf = snapshot.workflows ? pipelineWorkflowOf(snapshot.workflows, pipeline.name) : undefined;
  if (!wf?.metadata.name) {
    io.stdout.write(`${pipeline.name}: no Workflow in namespace ${pipeline.namespace}: nothing to retry (npm run deploy -- ${pipeline.name})\n`);
    return EXIT.inProgress;
  }
  const phase = wf.status?.phase ?? '';
  if (phase !== 'Failed' && phase !== 'Error') {
    io.stdout.write(`${pipeline.name}: Workflow ${wf.metadata.name} is ${phase || 'not picked up by the engine yet'}: nothing to retry (Argo retries only a Failed or Error Workflow)\n`);
    return EXIT.inProgress;
  }
  const view = engineView(wf, pipeline.steps.map((st) => st.name));
  const forward = await startPortForward(pipeline.namespace, io.env, requestTimeout, values.context);
  try {
    const answer = await retryWorkflowRequest(forward.url, pipeline.namespace, wf.metadata.name, gcloudToken(requestTimeout), requestTimeout);
    for (const line of retryLines(pipeline.name, wf.metadata.name, view, answer)) io.stdout.write(`${line}\n`);
    return answer.ok ? EXIT.completed : EXIT.failed;
  } finally {
    forward.stop();
  }
}

/**
 * `report <pipeline> [--out <file>] [--lineage] [--context ..] [--namespace ..] [--timeout ..]`: `status <pipeline>
 * --report` written as one self-contained HTML page (status/html-report.ts); --watch, --json and the rest are refused
 * as with --report.
 */
export function reportArgs(argv: readonly string[]): string[] {
  return [...argv, '--report'];
}

/** uPlot's minified browser build and stylesheet (npm `uplot`, a dependency), read when a report is written. */
export function plotLibrary(): PlotLibrary {
  const dist = path.join(path.dirname(require.resolve('uplot/package.json')), 'dist');
  return { js: fs.readFileSync(path.join(dist, 'uPlot.iife.min.js'), 'utf8'), css: fs.readFileSync(path.join(dist, 'uPlot.min.css'), 'utf8') };
}

/**
 * A pipeline's status with every string redacted and stripped of control sequences (util/redact.ts, util/inert.ts):
 * the HTML report escapes its text itself, so the redaction runs on the values, not on the page.
 */
export function redactStatus(p: PipelineStatus): PipelineStatus {
  const clean = (v: unknown): unknown =>
    typeof v === 'string' ? stripControls(redact(v)) : Array.isArray(v) ? v.map(clean) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clean(x)])) : v;
  return clean(p) as PipelineStatus;
}

const TENSORBOARD_USAGE = `usage: npm run tensorboard -- <pipeline> [--dir <folder>] [--port <n>] [--no-serve] [--context <name>] [--namespace <ns>] [--timeout <s>]
  copies the run's TensorBoard event files (gs://.../<run name>/tensorboard/, MaxText's tensorboard_dir) from the bucket
  with your gcloud login into --dir (default reports/tensorboard/<pipeline>/<run id>/, gitignored; only new or grown
  files), then runs \`tensorboard --logdir <folder> --port <n>\` (default 6006) when tensorboard is on PATH
  (pip install tensorboard), else prints that command; --no-serve only copies.
`;

/** The first executable `name` on PATH, or none. */
function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** `tensorboard <pipeline>`: status/tensorboard.ts. Exit 0 once copied (and served), 4 when nothing could be listed. */
async function tensorboard(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, {
    dir: { type: 'string' },
    port: { type: 'string' },
    'no-serve': { type: 'boolean' },
    timeout: { type: 'string' },
    context: { type: 'string' },
    namespace: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(TENSORBOARD_USAGE);
    return EXIT.completed;
  }
  if (positionals.length !== 1) throw new UsageError(`tensorboard takes exactly one pipeline, got ${positionals.length === 0 ? 'none' : positionals.map((p) => `'${p}'`).join(' ')}`);
  const port = values.port ?? '6006';
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw new UsageError(`--port must be a TCP port (1-65535), got '${port}'`);
  const requestTimeout = timeoutMs(values.timeout);
  const s = setup(io.env);
  const { cluster, context, server } = await connect(io, s, requestTimeout, values.context);
  const { chosen: [pipeline] } = await pipelinesToShow(io, cluster, s, positionals, context, server, values.namespace);
  const runDir = pipeline!.paths.trainRunDir;
  if (!runDir) throw new UsageError(`${pipeline!.name}: its record names no training run folder (trainRunDir)`);
  const logdir = tensorboardDir(runDir);
  const local = values.dir !== undefined ? path.resolve(values.dir) : path.join(findRepoRoot(), 'reports', 'tensorboard', pipeline!.name, pipeline!.runId);
  const options = { endpoint: io.env.STORAGE_EMULATOR_HOST || GCS_ENDPOINT, token: gcloudToken(requestTimeout), timeoutMs: requestTimeout };
  const result = await syncEventFiles(logdir, local, gcsPrefixLister(options), gcsDownloader(options));
  for (const p of result.problems) io.stderr.write(`note: ${p}\n`);
  const listed = result.copied.length + result.kept.length;
  io.stdout.write(`${logdir} -> ${local}: ${result.copied.length} file(s) copied, ${result.kept.length} already there\n`);
  if (listed === 0 && result.problems.some((p) => p.startsWith('cannot list'))) return EXIT.unreachable;
  if (listed === 0) io.stdout.write(`no event files yet: MaxText writes them once training steps (enable_tensorboard: true, MaxText maxtext-v0.2.4 base.yml)\n`);
  const command = ['tensorboard', '--logdir', local, '--port', port];
  const binary = onPath('tensorboard', io.env);
  if (values['no-serve'] || !binary) {
    io.stdout.write(`${binary ? '' : 'tensorboard is not on PATH (pip install tensorboard); then: '}${command.join(' ')}\n`);
    return EXIT.completed;
  }
  io.stdout.write(`${command.join(' ')}   (Ctrl-C to stop)\n`);
  const { spawn } = await import('child_process');
  return new Promise((resolve) => {
    const child = spawn(binary, command.slice(1), { stdio: 'inherit' });
    child.on('error', (err) => {
      io.stderr.write(`tensorboard: ${err.message}\n`);
      resolve(EXIT.usage);
    });
    child.on('exit', (code) => resolve(code === 0 || code === null ? EXIT.completed : EXIT.usage));
  });
}

/** Runs `status <args>`, `logs <args>` or `workflows-ui`; resolves to the exit status. */
export async function main(argv: string[], raw: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  // Everything status and logs print comes from the cluster (pod messages, events, logs): one redaction on the way out.
  // (`logs` streams through a line redactor of its own, status/redact-stream.ts, so a key split over lines is caught.)
  const io: Io = { ...raw, stdout: redacting(raw.stdout), stderr: redacting(raw.stderr) };
  const [command, ...rest] = argv;
  const name = command === 'logs' ? 'logs' : command === 'retry' ? 'retry' : 'status';
  const code = await (async () => {
    try {
      if (command === 'status') return await status(rest, io);
      if (command === 'report') return await status(reportArgs(rest), io, 'html');
      if (command === 'tensorboard') return await tensorboard(rest, io);
      if (command === 'logs') return await logs(rest, { ...io, stdout: raw.stdout });
      if (command === 'workflows-ui') return workflowsUi(io);
      if (command === 'rehearsal-check') return await rehearsalCheck(rest, io);
      if (command === 'retry') return await retry(rest, io);
      throw new UsageError(`the first argument must be 'status', 'report', 'tensorboard', 'logs', 'retry', 'workflows-ui' or 'rehearsal-check', got '${command ?? ''}'`);
    } catch (err) {
      if (err instanceof UsageError) {
        io.stderr.write(`${name}: ${err.message}\n${name === 'logs' ? LOGS_USAGE : name === 'retry' ? RETRY_USAGE : STATUS_USAGE}`);
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
  })();
  // Let the redacting streams hand their last writes to the real ones.
  await Promise.all([io.stdout, io.stderr].map((w) => new Promise((resolve) => w.end(resolve))));
  return code;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => {
    // A request abandoned at its deadline (a silent endpoint, a hung credential plugin) may still hold a socket or a
    // child process open: exit now rather than wait for them. stdout/stderr are synchronous for files and pipes on Linux.
    process.exit(code);
  });
}
