/**
 * The deploy's wait for a step (status/step-wait.ts, run by constructs/jobset-step.ts as a local-exec provisioner):
 * it returns when the JobSet ends, and fails within one poll, naming the reason and the retry commands, when the step
 * cannot end by itself. Kueue v0.19.2: a workload whose pods never became ready is deactivated
 * (pkg/controller/core/workload_controller.go `triggerDeactivation`, then the `!IsActive` branch of `Reconcile` evicts
 * it with reason `Deactivated` + "DueTo" + the cause, pkg/workload/evict/evict.go `Evict`); JobSet v0.12.0 leaves a
 * suspended JobSet without `status.terminalState`. The end-to-end test runs real Terraform on the synthesized wait
 * resource against the fake API server on loopback (bench/fake-kube-api.ts) with the real client-node.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { deactivatedWorkload, jobSet, kueueDeactivationMessage, pipeline, startFakeApi, step, TOKEN, World, emptyWorld, workload, iso } from '../../bench/fake-kube-api';
import { API_ERROR_MINUTES, INADMISSIBLE_MINUTES, parseArgs, POLL_SECONDS, StepWaitArgs, verdict, waitForStep } from '../../status/step-wait';
import { Snapshot } from '../../status/model';
import { terraformTest } from '../ci-env';
import { ensureDist } from '../dist';
import { synthStack } from '../util';

const p = pipeline('rl-qwen3');
const train = step(p, 'train');
const ARGS: StepWaitArgs = { namespace: train.namespace, jobSet: train.jobSetName, pipeline: p.name, step: 'train', minutes: train.waitMinutes };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any> & { metadata: Record<string, any> };

/** What Kueue v0.19.2 leaves on a workload it deactivated after backoffLimitCount requeues. */
function deactivated(js: Obj): Obj {
  const w = workload(js, false);
  return {
    ...w,
    spec: { ...w.spec, active: false },
    status: {
      conditions: [
        { type: 'QuotaReserved', status: 'False', reason: 'Pending', message: 'The workload is deactivated', lastTransitionTime: iso(90) },
        {
          type: 'Evicted',
          status: 'True',
          reason: 'DeactivatedDueToRequeuingLimitExceeded',
          message: 'The workload is deactivated due to exceeding the maximum number of re-queuing retries',
          lastTransitionTime: iso(90),
        },
      ],
    },
  };
}
const suspended = () => jobSet(train, { conditions: [{ type: 'Suspended', status: 'True', reason: 'SuspendedJobs', message: 'jobset is suspended' }] });
const snap = (jobSets: Obj[], workloads: Obj[]): Snapshot => ({ jobSets, workloads, pods: [], events: [] }) as unknown as Snapshot;

describe('verdict: one poll', () => {
  test.each([
    ['AdmissionCheck', 'kubectl describe provisioningrequests -n default'],
    ['MaximumExecutionTimeExceeded', "the JobSet's kueue.x-k8s.io/max-exec-time-seconds label"],
  ])('deactivated for %s: the reason, Kueue message and where that cause shows, not the pods', (cause, hint) => {
    const js = suspended();
    const w = deactivatedWorkload(js, cause);
    const v = verdict(ARGS, snap([js], [w]), Date.parse(iso(90)));
    expect(v).toMatchObject({ kind: 'stuck', reason: `DeactivatedDueTo${cause}` });
    const m = (v as { message: string }).message;
    expect(m).toContain(`(DeactivatedDueTo${cause}: ${kueueDeactivationMessage(cause)}); fix the cause (${hint}; npm run status)`);
    expect(m).not.toContain('kubectl describe pods');
  });
  test('a deactivated workload: stuck at once, with the reason Kueue gives and the commands that retry', () => {
    const js = suspended();
    const w = deactivated(js);
    const v = verdict(ARGS, snap([js], [w]), Date.parse(iso(90)));
    expect(v).toEqual({ kind: 'stuck', reason: 'DeactivatedDueToRequeuingLimitExceeded', message: expect.any(String) });
    const m = (v as { message: string }).message;
    expect(m).toContain(`rl-qwen3: step train (JobSet default/${train.jobSetName}) will not end by itself: Kueue deactivated its workload ${w.metadata.name}`);
    expect(m).toContain('exceeding the maximum number of re-queuing retries');
    expect(m).toContain(`kubectl patch workload -n default ${w.metadata.name} --type=merge -p '{"spec":{"active":true}}' && npm run deploy -- rl-qwen3`);
  });

  test('a queued, admitted or running step waits; an ended one returns, either way', () => {
    const js = suspended();
    expect(verdict(ARGS, snap([js], []), 0)).toEqual({ kind: 'wait' });
    expect(verdict(ARGS, snap([js], [workload(js, false)]), Date.parse(iso(600)))).toEqual({ kind: 'wait' });
    expect(verdict(ARGS, snap([js], [workload(js, true)]), 0)).toEqual({ kind: 'wait' });
    // The step's own JobSet, not the first one listed (the selector also lists the other runs' JobSets of the step).
    const other = { ...jobSet(step(p, 'to-maxtext'), { terminalState: 'Completed' }) };
    expect(verdict(ARGS, snap([other, js], [workload(js, true)]), 0)).toEqual({ kind: 'wait' });
    for (const t of ['Completed', 'Failed']) expect(verdict(ARGS, snap([{ ...js, status: { terminalState: t } }], [deactivated(js)]), 0)).toEqual({ kind: 'ended', terminalState: t });
  });

  test(`an Inadmissible workload (no queue) waits ${INADMISSIBLE_MINUTES} minutes, then is stuck; a gone JobSet is stuck`, () => {
    const js = suspended();
    const w = workload(js, false);
    w.status.conditions = [{ type: 'QuotaReserved', status: 'False', reason: 'Inadmissible', message: "LocalQueue lq doesn't exist", lastTransitionTime: iso(0) }];
    expect(verdict(ARGS, snap([js], [w]), Date.parse(iso(INADMISSIBLE_MINUTES)) - 1).kind).toBe('wait');
    const v = verdict(ARGS, snap([js], [w]), Date.parse(iso(INADMISSIBLE_MINUTES)));
    expect(v).toMatchObject({ kind: 'stuck', reason: 'Inadmissible' });
    expect((v as { message: string }).message).toContain("LocalQueue lq doesn't exist");
    expect(verdict(ARGS, snap([], []), 0)).toMatchObject({ kind: 'stuck', reason: 'JobSetGone', message: expect.stringContaining('npm run deploy -- rl-qwen3 creates it again') });
  });
});

/** Runs waitForStep on a simulated clock; `world(t)` is what the API answers at minute t (throws for no answer). */
async function simulate(args: StepWaitArgs, world: (minutes: number) => Snapshot): Promise<{ code: number; atMinutes: number; log: string[] }> {
  let now = Date.parse(iso(0));
  const log: string[] = [];
  const minutes = () => (now - Date.parse(iso(0))) / 60_000;
  const code = await waitForStep(args, {
    snapshot: async () => world(minutes()),
    now: () => now,
    sleep: async (ms) => void (now += ms),
    log: (l) => log.push(l),
  });
  return { code, atMinutes: minutes(), log };
}

describe('waitForStep over a whole run (simulated clock)', () => {
  test('a workload deactivated after 90 minutes fails the wait within one poll, not at the end of the wait budget', async () => {
    const js = suspended();
    const r = await simulate(ARGS, (t) => snap([js], [t < 90 ? workload(js, t > 10) : deactivated(js)]));
    expect(r.code).toBe(1);
    expect(r.atMinutes).toBeGreaterThanOrEqual(90);
    expect(r.atMinutes).toBeLessThanOrEqual(90 + POLL_SECONDS / 60);
    expect(r.atMinutes).toBeLessThan(15 + 90);
    expect(r.log.join('\n')).toContain('DeactivatedDueToRequeuingLimitExceeded');
  });

  test('a run that completes after 30 hours returns 0', async () => {
    const js = suspended();
    const r = await simulate(ARGS, (t) => snap([t < 1800 ? js : { ...js, status: { terminalState: 'Completed' } }], [workload(js, true)]));
    expect(r).toEqual({ code: 0, atMinutes: expect.any(Number), log: [] });
    expect(r.atMinutes).toBeLessThanOrEqual(1800 + POLL_SECONDS / 60);
  });

  test(`no answer for ${API_ERROR_MINUTES} minutes, or the wait budget spent: fail, saying the JobSet keeps running`, async () => {
    const js = suspended();
    const silent = await simulate(ARGS, (t) => {
      if (t >= 60) throw new Error('connect ETIMEDOUT');
      return snap([js], [workload(js, true)]);
    });
    expect(silent.code).toBe(1);
    expect(silent.atMinutes).toBeGreaterThanOrEqual(60 + API_ERROR_MINUTES - POLL_SECONDS / 60);
    expect(silent.atMinutes).toBeLessThanOrEqual(60 + API_ERROR_MINUTES + POLL_SECONDS / 60);
    expect(silent.log).toHaveLength(2); // one "retrying" line, then the verdict
    expect(silent.log[0]).toBe('rl-qwen3: step train: the API did not answer (connect ETIMEDOUT); retrying');
    expect(silent.log[1]).toContain('The JobSet is untouched and keeps running; npm run deploy -- rl-qwen3 waits for it again');
    const short = await simulate({ ...ARGS, minutes: 30 }, () => snap([js], [workload(js, true)]));
    expect(short.code).toBe(1);
    expect(short.log[0]).toContain('still not ended after the deploy\'s wait of 30 minutes');
  });
});

test('a deactivation without an Evicted condition (yet) is still stuck, with a generic reason', () => {
  const js = suspended();
  const w = deactivated(js);
  w.status.conditions = w.status.conditions.filter((c: Obj) => c.type !== 'Evicted');
  expect(verdict(ARGS, snap([js], [w]), 0)).toMatchObject({ kind: 'stuck', reason: 'Deactivated', message: expect.stringContaining('(Deactivated: the workload is deactivated)') });
  const cleared = deactivated(js);
  cleared.status.conditions = cleared.status.conditions.map((c: Obj) => (c.type === 'Evicted' ? { ...c, status: 'False' } : c));
  expect(verdict(ARGS, snap([js], [cleared]), 0)).toMatchObject({ reason: 'Deactivated' });
  // An active workload that is merely pending, however long, waits (quota may come back).
  const pending = workload(js, false);
  expect(verdict(ARGS, snap([js], [pending]), Date.parse(iso(10_000)))).toEqual({ kind: 'wait' });
});

test('the command line: a whole one parses; every problem at once', () => {
  expect(parseArgs(['--namespace', 'default', '--jobset', 'j', '--pipeline', 'p', '--step', 'train', '--minutes', '90', '--poll-seconds', '0.5'])).toEqual({
    args: { namespace: 'default', jobSet: 'j', pipeline: 'p', step: 'train', minutes: 90, pollSeconds: 0.5 },
    problems: [],
  });
  expect(parseArgs(['--namespace', 'default', '--jobset', 'j', '--pipeline', 'p', '--step', 'train', '--minutes', '0']).problems).toEqual(["--minutes must be a number > 0, got '0'"]);
  expect(parseArgs(['--namespace', 'default', '--jobset', 'j', '--pipeline', 'p', '--step', 'train', '--minutes', '5']).args?.pollSeconds).toBeUndefined();
  expect(parseArgs(['namespace', 'default']).problems[0]).toBe("expected --<name> <value>, got 'namespace'");
  expect(parseArgs(['--namespace', 'default', '--minutes', 'x', '--poll-seconds', '0', 'stray'])).toEqual({
    problems: ["expected --<name> <value>, got 'stray'", '--jobset is required', '--pipeline is required', '--step is required', "--minutes must be a number > 0, got 'x'", "--poll-seconds must be a number > 0, got '0'"],
  });
});

function run(cmd: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ code: number | null; out: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const start = Date.now();
    const child = spawn(cmd, args, options);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, ms: Date.now() - start }));
  });
}

describe('Terraform runs the synthesized wait against an API server (fake, loopback) with the real client', () => {
  beforeAll(ensureDist);
  const stack = synthStack('rl-qwen3', {});
  const [waitId, waitResource] = Object.entries(stack.resource.terraform_data as Record<string, Obj>).find(([id]) => id.includes('train_Wait_'))!;
  const exec = waitResource.provisioner[0]['local-exec'];

  /** The stack's wait alone, as cdktf lays it out (<tmp>/cdktf.out/stacks/rl-qwen3, dist/ beside cdktf.out). */
  function workdir(server: string): { dir: string; env: NodeJS.ProcessEnv; root: string } {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-wait-'));
    fs.symlinkSync(path.resolve(__dirname, '..', '..', 'dist'), path.join(root, 'dist'));
    const dir = path.join(root, 'cdktf.out', 'stacks', 'rl-qwen3');
    fs.mkdirSync(dir, { recursive: true });
    const bin = path.join(root, 'bin');
    fs.mkdirSync(bin);
    // The exec plugin the waiter runs, by the name the stack gives it, printing an ExecCredential.
    const plugin = path.join(bin, exec.environment.KUBE_EXEC_COMMAND);
    const credential = { apiVersion: exec.environment.KUBE_EXEC_API_VERSION, kind: 'ExecCredential', status: { token: TOKEN, expirationTimestamp: '2099-01-01T00:00:00Z' } };
    fs.writeFileSync(plugin, `#!${process.execPath}\nprocess.stdout.write(${JSON.stringify(JSON.stringify(credential))});\n`, { mode: 0o755 });
    const config = {
      resource: {
        terraform_data: {
          [waitId]: {
            triggers_replace: { jobset_uid: 'uid-1' },
            provisioner: [{ 'local-exec': { command: `${exec.command} --poll-seconds 0.2`, environment: { ...exec.environment, KUBE_HOST: server, KUBE_CA_B64: '' } } }],
          },
        },
      },
    };
    fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify(config));
    const env = { PATH: `${bin}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`, HOME: root, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: '/dev/null' };
    return { dir, env, root };
  }

  async function apply(world: World): Promise<{ code: number | null; out: string; ms: number }> {
    const api = await startFakeApi(world);
    const { dir, env, root } = workdir(api.url);
    try {
      const init = await run('terraform', ['init', '-input=false', '-no-color'], { cwd: dir, env });
      if (init.code !== 0) throw new Error(`terraform init failed: ${init.out}`);
      return await run('terraform', ['apply', '-auto-approve', '-input=false', '-no-color', '-lock=false'], { cwd: dir, env });
    } finally {
      await api.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  }

  test('the synthesized provisioner is the waiter with the cluster endpoint and exec plugin of the stack', () => {
    expect(exec.command).toBe(`node ../../../dist/status/step-wait.js --namespace default --jobset ${train.jobSetName} --pipeline rl-qwen3 --step train --minutes ${train.waitMinutes}`);
    expect(exec.environment.KUBE_HOST).toMatch(/^https:\/\/\$\{data\.google_container_cluster\./);
    expect(Object.keys(exec.environment).sort()).toEqual(['KUBE_CA_B64', 'KUBE_EXEC_API_VERSION', 'KUBE_EXEC_COMMAND', 'KUBE_HOST']);
  });

  terraformTest('a deactivated workload fails the apply at once, and Terraform prints the reason and the retry commands', async () => {
    const js = suspended();
    const world = { ...emptyWorld(), jobSets: [js], workloads: [deactivated(js)] };
    const r = await apply(world);
    expect(r.code).toBe(1);
    const out = r.out.replace(/\s+/g, ' ');
    expect(out).toContain('local-exec provisioner error');
    expect(out).toContain(`rl-qwen3: step train (JobSet default/${train.jobSetName}) will not end by itself: Kueue deactivated its workload`);
    expect(out).toContain('DeactivatedDueToRequeuingLimitExceeded');
    expect(out).toContain('&& npm run deploy -- rl-qwen3');
  });

  terraformTest('a completed JobSet: the apply succeeds', async () => {
    const js = jobSet(train, { terminalState: 'Completed' });
    const r = await apply({ ...emptyWorld(), jobSets: [js], workloads: [workload(js, true)] });
    expect({ code: r.code, out: r.out }).toEqual({ code: 0, out: expect.stringContaining('Apply complete! Resources: 1 added') });
  });
});
