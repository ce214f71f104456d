/**
 * The deploy's wait for one pipeline step: `node dist/status/step-wait.js --namespace <ns> --jobset <name>
 * --pipeline <p> --step <s> --minutes <n>`, run by Terraform as the step's `terraform_data` local-exec provisioner
 * (constructs/jobset-step.ts). It polls the JobSet and its Kueue Workload and
 * - exits 0 when the JobSet has ended (`status.terminalState` Completed or Failed, JobSet v0.12.0
 *   pkg/controllers/jobset_controller.go `setJobSetCompletedCondition` / failure): the completion gate then reads
 *   which;
 * - exits 1 at once, naming the reason and the commands that retry, when the step will not end by itself:
 *   - Kueue deactivated its Workload (`spec.active: false`; kubernetes-sigs/kueue v0.19.2
 *     pkg/controller/core/workload_controller.go `triggerDeactivation` sets it after `backoffLimitCount` requeues, and the
 *     `!IsActive` branch of `Reconcile` evicts with reason `Deactivated...` and the cause in the message): the JobSet
 *     stays suspended with no `status.terminalState` (JobSet v0.12.0 sets it only on completion and failure);
 *   - the Workload has been Inadmissible (its LocalQueue or ClusterQueue missing or stopped) for
 *     INADMISSIBLE_MINUTES;
 *   - the JobSet is gone (deleted by hand);
 * - exits 1 when `--minutes` pass, or when the API has not answered for API_ERROR_MINUTES, saying that the JobSet
 *   keeps running and that deploying again resumes the wait.
 * A failed provisioner taints only this `terraform_data`, never the JobSet: the next deploy re-runs the wait on the same
 * JobSet. Credentials: the cluster's exec plugin (KUBE_EXEC_COMMAND, gke-gcloud-auth-plugin), so they never expire
 * during a wait; the API server from KUBE_HOST (+ KUBE_CA_B64 for the IP endpoint).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Cluster } from './cluster';
import { PIPELINE_LABELS } from '../jobs/pipeline';
import { condition, Deactivation, deactivationOf, Snapshot, WorkloadObject, workloadOf } from './model';

/** How long a Workload may stay Inadmissible before the wait gives up, minutes. */
export const INADMISSIBLE_MINUTES = 15;
/** How long the API may fail every poll before the wait gives up, minutes. */
export const API_ERROR_MINUTES = 15;
/** Seconds between polls. */
export const POLL_SECONDS = 15;

export interface StepWaitArgs {
  readonly namespace: string;
  readonly jobSet: string;
  readonly pipeline: string;
  readonly step: string;
  /** The whole wait, minutes (jobs/pipeline.ts waitMinutes). */
  readonly minutes: number;
  /** @default POLL_SECONDS */
  readonly pollSeconds?: number;
}

export type Verdict =
  | { readonly kind: 'wait' }
  | { readonly kind: 'ended'; readonly terminalState: string }
  | { readonly kind: 'stuck'; readonly reason: string; readonly message: string };

/** Where the cause of a deactivation shows (status/model.ts `deactivationOf` reads which of Kueue's limits it was). */
function causeHint(a: StepWaitArgs, d: Deactivation): string {
  if (d.cause === 'AdmissionCheck') return `kubectl describe provisioningrequests -n ${a.namespace}`;
  if (d.cause === 'MaximumExecutionTimeExceeded') return `the JobSet's kueue.x-k8s.io/max-exec-time-seconds label`;
  return `kubectl describe pods -n ${a.namespace} -l jobset.sigs.k8s.io/jobset-name=${a.jobSet}`;
}

/** The retry line: make the workload active again, then deploy (the tainted wait runs again on the same JobSet). */
function retry(a: StepWaitArgs, workload: string, d: Deactivation): string {
  return (
    `fix the cause (${causeHint(a, d)}; npm run status), then retry: ` +
    `kubectl patch workload -n ${a.namespace} ${workload} --type=merge -p '{"spec":{"active":true}}' && npm run deploy -- ${a.pipeline}`
  );
}

function stuckWorkload(a: StepWaitArgs, w: WorkloadObject, nowMs: number): Verdict | undefined {
  const head = `${a.pipeline}: step ${a.step} (JobSet ${a.namespace}/${a.jobSet}) will not end by itself:`;
  const name = w.metadata.name ?? '<its workload>';
  const d = deactivationOf(w);
  if (d) {
    const why = d.detail ?? 'the workload is deactivated';
    return { kind: 'stuck', reason: d.reason, message: `${head} Kueue deactivated its workload ${name} (${d.reason}: ${why}); ${retry(a, name, d)}` };
  }
  const reserved = condition(w.status?.conditions, 'QuotaReserved');
  const since = reserved?.lastTransitionTime ? new Date(reserved.lastTransitionTime).getTime() : NaN;
  if (reserved?.status === 'False' && reserved.reason === 'Inadmissible' && nowMs - since >= INADMISSIBLE_MINUTES * 60_000) {
    return {
      kind: 'stuck',
      reason: 'Inadmissible',
      message: `${head} its workload ${name} has been inadmissible for ${INADMISSIBLE_MINUTES} minutes (${reserved.message ?? ''}); deploy infra (it owns the queues), then npm run deploy -- ${a.pipeline}`,
    };
  }
  return undefined;
}

/** What one poll says about the step. Pure. */
export function verdict(a: StepWaitArgs, snapshot: Snapshot, nowMs: number): Verdict {
  const js = snapshot.jobSets.find((j) => j.metadata.name === a.jobSet);
  if (!js) {
    return {
      kind: 'stuck',
      reason: 'JobSetGone',
      message: `${a.pipeline}: step ${a.step}: JobSet ${a.namespace}/${a.jobSet} no longer exists (deleted?); npm run deploy -- ${a.pipeline} creates it again`,
    };
  }
  const terminal = js.status?.terminalState;
  if (terminal === 'Completed' || terminal === 'Failed') return { kind: 'ended', terminalState: terminal };
  const w = workloadOf(js, snapshot.workloads);
  return (w && stuckWorkload(a, w, nowMs)) ?? { kind: 'wait' };
}

/** The message when the wait itself ends without the step ending. */
export function gaveUp(a: StepWaitArgs, why: string): string {
  return (
    `${a.pipeline}: step ${a.step} (JobSet ${a.namespace}/${a.jobSet}): ${why}. The JobSet is untouched and keeps running; ` +
    `npm run deploy -- ${a.pipeline} waits for it again (npm run status shows where it is)`
  );
}

export interface WaitIo {
  readonly snapshot: () => Promise<Snapshot>;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly log: (line: string) => void;
}

/** Polls until the step ends (0) or cannot (1, with the message on `log`). */
export async function waitForStep(a: StepWaitArgs, io: WaitIo): Promise<0 | 1> {
  const start = io.now();
  let lastAnswer = start;
  let lastState = '';
  for (;;) {
    try {
      const v = verdict(a, await io.snapshot(), io.now());
      lastAnswer = io.now();
      if (v.kind === 'ended') return 0;
      if (v.kind === 'stuck') return (io.log(v.message), 1);
    } catch (err) {
      if (lastState !== 'error') io.log(`${a.pipeline}: step ${a.step}: the API did not answer (${(err as Error).message}); retrying`);
      lastState = 'error';
      if (io.now() - lastAnswer >= API_ERROR_MINUTES * 60_000) return (io.log(gaveUp(a, `the API has not answered for ${API_ERROR_MINUTES} minutes`)), 1);
    }
    if (io.now() - start >= a.minutes * 60_000) return (io.log(gaveUp(a, `still not ended after the deploy's wait of ${a.minutes} minutes`)), 1);
    await io.sleep((a.pollSeconds ?? POLL_SECONDS) * 1000);
  }
}

/** Parses the command line; returns the problems (all of them) instead of throwing one by one. */
export function parseArgs(argv: readonly string[]): { args?: StepWaitArgs; problems: string[] } {
  const v: Record<string, string> = {};
  const problems: string[] = [];
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--') || argv[i + 1] === undefined) problems.push(`expected --<name> <value>, got '${argv[i]}'`);
    else v[argv[i].slice(2)] = argv[i + 1];
  }
  for (const k of ['namespace', 'jobset', 'pipeline', 'step', 'minutes']) if (v[k] === undefined) problems.push(`--${k} is required`);
  const minutes = Number(v.minutes);
  const poll = v['poll-seconds'] === undefined ? undefined : Number(v['poll-seconds']);
  if (v.minutes !== undefined && !(minutes > 0)) problems.push(`--minutes must be a number > 0, got '${v.minutes}'`);
  if (poll !== undefined && !(poll > 0)) problems.push(`--poll-seconds must be a number > 0, got '${v['poll-seconds']}'`);
  if (problems.length > 0) return { problems };
  return { args: { namespace: v.namespace, jobSet: v.jobset, pipeline: v.pipeline, step: v.step, minutes, pollSeconds: poll }, problems };
}

/** The client's kubeconfig from the provisioner's environment: the same server and exec plugin as the providers. */
export function kubeConfigFromEnv(k8s: typeof import('@kubernetes/client-node'), env: NodeJS.ProcessEnv): KubeConfig {
  const kc = new k8s.KubeConfig();
  const server = env.KUBE_HOST ?? '';
  kc.loadFromOptions({
    // client-node refuses plain http unless TLS verification is off: only a loopback test server is http.
    clusters: [{ name: 'cluster', server, caData: env.KUBE_CA_B64 || undefined, skipTLSVerify: server.startsWith('http://') }],
    users: [{ name: 'user', exec: { apiVersion: env.KUBE_EXEC_API_VERSION, command: env.KUBE_EXEC_COMMAND, args: [], interactiveMode: 'Never' } }],
    contexts: [{ name: 'step-wait', cluster: 'cluster', user: 'user' }],
    currentContext: 'step-wait',
  });
  return kc;
}

async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { args, problems } = parseArgs(argv);
  const missing = ['KUBE_HOST', 'KUBE_EXEC_COMMAND', 'KUBE_EXEC_API_VERSION'].filter((k) => !env[k]);
  if (!args || missing.length > 0) {
    for (const p of [...problems, ...missing.map((k) => `${k} must be set`)]) console.error(`step-wait: ${p}`);
    return 2;
  }
  const k8s = await import('@kubernetes/client-node');
  const { Cluster: ClusterClass } = await import('./cluster');
  const cluster: Cluster = new ClusterClass(kubeConfigFromEnv(k8s, env), { requestTimeoutMs: 30_000 });
  const selector = `${PIPELINE_LABELS.pipeline}=${args.pipeline},${PIPELINE_LABELS.step}=${args.step}`;
  return waitForStep(args, {
    snapshot: () => cluster.snapshot(args.namespace, selector),
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    log: (line) => console.error(line),
  });
}

if (require.main === module) {
  main(process.argv.slice(2), process.env).then(
    (code) => process.exit(code),
    (err) => {
      console.error(`step-wait: ${(err as Error).message}`);
      process.exit(1);
    },
  );
}
