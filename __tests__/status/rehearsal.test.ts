/**
 * `npm run status -- rehearse-<pipeline>` (status/rehearsal.ts): the rehearsal's record, written by its stack into the
 * cluster (jobs/record.ts, with jobs/rehearsal.ts RehearsalFacts), read back by the compiled CLI from the fake API
 * server (bench/fake-kube-api.ts): which steps passed, the first failure with its log lines, the combination it proves
 * and what it cannot show. A new shell (no exports): everything comes from the cluster's record.
 */
import { loadDeployment } from '../../config/deployment';
import { emptyWorld, iso, jobSet, pod, recordMap, runCli, workload } from '../../bench/fake-kube-api';
import { REHEARSAL_CANNOT_SHOW, rehearsalKey } from '../../jobs/rehearsal';
import { fake, kubeconfig, useFakeApis } from './fake-api-harness';

useFakeApis();

const ENV = { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation', REHEARSE: 'rl-qwen3' };
const d = loadDeployment({ env: ENV });
const rehearsal = d.pipelines.find((p) => p.name === 'rehearse-rl-qwen3')!;
const real = d.pipelines.find((p) => p.name === 'rl-qwen3')!;
const rec = d.records['rehearse-rl-qwen3']!;
const completed = (m: number) => ({ terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'done', lastTransitionTime: iso(m) }] });
const TRACE = ['Traceback (most recent call last):', '  File "rewards/final_number.py", line 12, in reward', "TypeError: unsupported operand type(s) for +: 'int' and 'str'"];

/** to-maxtext completed; train failed at step 1 with a TypeError (or every step completed). */
function world(outcome: 'failed' | 'passed') {
  const w = emptyWorld();
  const [toMaxText, train, ...rest] = rehearsal.steps;
  w.jobSets.push(jobSet(toMaxText!, completed(5)));
  if (outcome === 'passed') {
    w.jobSets.push(jobSet(train!, completed(15)));
    for (const s of rest) w.jobSets.push(jobSet(s, completed(30)));
  } else {
    const js = jobSet(train!, { terminalState: 'Failed', conditions: [{ type: 'Failed', status: 'True', reason: 'FailJobSetFailurePolicyAction', message: 'first failed job: head', lastTransitionTime: iso(9) }] });
    w.jobSets.push(js);
    w.workloads.push(workload(js, true, { chips: 8 }));
    const main = pod(js, 'pathways-head', { phase: 'Failed', containerStatuses: [{ name: 'workload-container', state: { terminated: { exitCode: 1 } } }] });
    w.pods.push(main);
    w.logs[main.metadata.name] = TRACE.map((l) => `${iso(8)} ${l}`);
  }
  w.configMaps = [recordMap(rec, rehearsal.labels)];
  return w;
}

test('the record holds what the rehearsal proves: key, images, versions, model, method, revision, file hashes', () => {
  expect(rec.rehearsal).toMatchObject({
    of: 'rl-qwen3',
    key: rehearsalKey(real.recipe, real.images),
    model: 'qwen3-30b-a3b',
    hfRepo: real.model.hfRepo,
    method: 'rl',
    images: rehearsal.images,
    versions: { maxtext: '0.2.4', lmEval: '0.4.12', vllm: rehearsal.eval!.image },
    cannotShow: [...REHEARSAL_CANNOT_SHOW],
  });
});

test('a failed rehearsal: the steps that passed, the first failure with its log lines; exit 1', async () => {
  const api = await fake(world('failed'));
  const env = kubeconfig(api.url);
  const json = await runCli(['status', 'rehearse-rl-qwen3', '--json'], env);
  expect(json.code).toBe(1);
  const [p] = JSON.parse(json.stdout).pipelines;
  expect(p.rehearsal).toEqual({
    verdict: 'failed',
    key: rec.rehearsal!.key,
    of: 'rl-qwen3',
    passed: ['to-maxtext'],
    firstFailure: { step: 'train', reason: 'FailJobSetFailurePolicyAction: first failed job: head', lines: TRACE },
  });
  const text = await runCli(['status', 'rehearse-rl-qwen3'], env);
  expect(text.stdout).toContain(`rehearsal of rl-qwen3 FAILED at train (key ${rec.rehearsal!.key})`);
  expect(text.stdout).toContain("      TypeError: unsupported operand type(s) for +: 'int' and 'str'");
  expect(text.stdout).toContain('cannot show: HBM at full size');
});

test('a passing rehearsal: every step passed, the deploy command; exit 0', async () => {
  const api = await fake(world('passed'));
  const r = await runCli(['status', 'rehearse-rl-qwen3'], kubeconfig(api.url));
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`rehearsal of rl-qwen3 PASSED (key ${rec.rehearsal!.key}): every step ran on the cut model; \`npm run deploy -- rl-qwen3\` may spend the slice`);
  expect(r.stdout).toContain('steps passed: to-maxtext, train, to-hf, eval');
});
