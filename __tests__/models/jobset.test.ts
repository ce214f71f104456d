/**
 * JobSet and Job behaviour (model: __tests__/models/jobset.ts) over every JobSet the app synthesizes, and the
 * deploy's wait against the JobSet's own lifetime (hashicorp/terraform-provider-kubernetes v2.38.0).
 */
import { buildPipeline, maxRunIdLength } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { testPlatform } from '../jobs/fixtures';
import { FailedJob, jobAfterFailures, jobSetNameErrors, jobValidationErrors, onJobFailures } from './jobset';
import { allConfigurations, Obj, podSets } from './synthesized';

const configs = allConfigurations();
const allJobSets = configs.flatMap(([c, s]) => s.jobSets.map((j) => [`${c}: ${j.manifest.metadata.name}`, j] as const));

describe('the JobSet webhook and the Job API accept every synthesized JobSet', () => {
  test.each(allJobSets)('%s', (_label, j) => {
    expect(jobSetNameErrors(j.manifest)).toEqual([]);
    for (const rj of j.manifest.spec.replicatedJobs) expect(jobValidationErrors(rj.template.spec)).toEqual([]);
  });
});

describe.each(Object.keys(RECIPES))('%s: the longest run id the program accepts still makes valid JobSets', (name) => {
  const platform = testPlatform();
  const longest = maxRunIdLength(RECIPES[name], platform);

  test('at the limit every derived name is valid', () => {
    const pipeline = buildPipeline(RECIPES[name], platform, { runId: 'r'.repeat(longest) });
    for (const step of pipeline.steps) expect(jobSetNameErrors(step.manifest)).toEqual([]);
  });

  test('one character more is refused at synth, naming the limit', () => {
    expect(() => buildPipeline(RECIPES[name], platform, { runId: 'r'.repeat(longest + 1), configSource: `pipelines.${name}` })).toThrow(
      `pipelines.${name}.runId: run id 'r${'r'.repeat(longest)}' is too long: run ids of ${name} may have at most ${longest} characters`,
    );
  });
});

test('the coordinator label, not the pod name, is what limits a Pathways pipeline', () => {
  const js: Obj = buildPipeline(RECIPES['rl-gemma4'], testPlatform(), { runId: 'r'.repeat(maxRunIdLength(RECIPES['rl-gemma4'], testPlatform())) }).steps[1].manifest;
  const longer = { ...js, metadata: { ...js.metadata, name: `${js.metadata.name}x` } };
  expect(jobSetNameErrors(longer)).toEqual([expect.stringMatching(/^coordinator label value '.*' \(65\) is invalid$/)]);
});

describe.each(allJobSets)('failures end the way the design says (%s)', (_label, j) => {
  const js = j.manifest;
  const max = js.spec.failurePolicy.maxRestarts;
  test('a reason the Jobs produce decides as the failure policy says; restarts are bounded by maxRestarts', () => {
    const main = js.spec.replicatedJobs[0].name;
    const failed = (reason: string): FailedJob[] => [{ replicatedJob: main, reason, at: 0 }];
    expect(onJobFailures(js, failed('PodFailurePolicy'), 0).action).toBe('FailJobSet');
    expect(onJobFailures(js, failed('DeadlineExceeded'), 0).action).toBe('FailJobSet');
    expect(onJobFailures(js, failed('BackoffLimitExceeded'), 0).action).toBe(max > 0 ? 'RestartJobSet' : 'FailJobSet');
    expect(onJobFailures(js, failed('BackoffLimitExceeded'), max)).toEqual({ action: 'FailJobSet', reason: 'ReachedMaxRestarts' });
  });
  test('a Pathways worker that crashes restarts in place without failing its Job; the main container never retries inside the Job', () => {
    for (const ps of podSets(js)) {
      if (ps.name === 'worker') {
        // pastBackoffLimitOnFailure: container restarts >= backoffLimit (4 x pods) fail the Job.
        expect(jobAfterFailures(ps.job, 4 * ps.job.parallelism - 1)).toBeUndefined();
        expect(jobAfterFailures(ps.job, 4 * ps.job.parallelism)).toBe('BackoffLimitExceeded');
      } else {
        // backoffLimit 0: the first failure ends the Job (FailJob, or Count past the limit); the JobSet decides.
        expect(jobAfterFailures(ps.job, 1)).toBe(ps.job.podFailurePolicy ? 'PodFailurePolicy' : 'BackoffLimitExceeded');
      }
    }
  });
});

describe.each(allJobSets)("the Workflow's wait outlasts the JobSet once admitted (%s)", (_label, j) => {
  // The step's wait task ends at its window (activeDeadlineSeconds, and retryStrategy.backoff.maxDuration: jobs/argo.ts)
  // and then fails the run while the JobSet would still be running. The JobSet must end by itself first: every attempt
  // is bounded by its Jobs' activeDeadlineSeconds, and a deadline fails the JobSet (no restart).
  test('the wait window >= (maxRestarts + 1) x deadline, with room left for queueing', () => {
    const js = j.manifest;
    const deadlines = js.spec.replicatedJobs.map((rj: Obj) => rj.template.spec.activeDeadlineSeconds);
    for (const d of deadlines) expect(d).toBeGreaterThan(0);
    const lifetime = (js.spec.failurePolicy.maxRestarts + 1) * Math.max(...deadlines);
    const wait = j.waitSeconds;
    expect(wait - lifetime).toBeGreaterThanOrEqual(30 * 60);
  });
});
