/**
 * Issue 24: the review fails closed and prints nothing it should not, on genuine Terraform 1.11.4 plans
 * (fixtures/real-plans/make.sh and make-hostile.sh) and edits of them. Every test asserts the exit code and that no
 * canary appears in stdout, stderr or the report.
 */
import * as fs from 'fs';
import * as path from 'path';
import { synthesisFromJson } from '../../review/load';
import { REDACTED } from '../../util/redact';
import { scanJson } from '../../util/json-scan';
import { review as reviewRules } from '../../review/findings';
import { reviewPlan, SENSITIVE_CHANGED } from '../../review/plan';
import { ConfigError } from '../../config/load';
import { asTf, infraJson, pipelineJson } from './fixtures';
import { cleanUp, HF_PREFIX, REAL, realTokenPlan, runCli, synthesisDir, writeFile } from './harness';

afterEach(cleanUp);

const real = (name: string) => path.join(REAL, `${name}.json`);
const readReal = (name: string) => JSON.parse(fs.readFileSync(real(name), 'utf8')) as Record<string, unknown>;
/** An infra stack that declares the terraform_data resources of the real plans (so the plan belongs to it). */
const tfDataStack = () => ({ resource: { terraform_data: Object.fromEntries(['login', 'labels', 'files', 'pool', 'step', 'train', 'slice'].map((n) => [n, {}])) } });
const review = (plan: string, extra: string[] = []) => runCli(['--plan', `infra=${plan}`, ...extra], synthesisDir({ infra: tfDataStack() }));

describe('1. secrets through formatting: redacted on the raw value, then shortened and escaped', () => {
  test('sensitive values with `|`, of 400 characters, and a sensitive map (keys too): nothing of them printed', () => {
    const r = review(real('sensitive-shapes'));
    expect(r.code).toBe(0);
    expect(r.report).toContain('terraform_data.labels');
    expect(r.report).toContain('terraform_data.login');
    expect(r.all).not.toMatch(/canary|PIPE|LONG|5512|5513|7301|7302/);
    // The sensitive map's new value is not shown as an emptied map (`(sensitive value) -> {}`) but as changed.
    // terraform_data's output copies its (sensitive) input: masked as a whole like the input (plan.ts pairedMarks)
    expect(r.report).toContain(`output: "${REDACTED}" -> "(known after apply)", input: "${REDACTED}" -> "${SENSITIVE_CHANGED}"`);
    expect(r.report).toContain(`input.long: "${REDACTED}" -> "${SENSITIVE_CHANGED}", input.piped: "${REDACTED}" -> "${SENSITIVE_CHANGED}"`);
    expect(r.report).not.toMatch(/-> \{\}/);
  });

  test('token-shaped values glued to `_` or letters, and one a 100-character cap would cut: no part printed', () => {
    const plan = realTokenPlan('token-shapes');
    expect(fs.readFileSync(plan, 'utf8')).toContain(`file_${HF_PREFIX}_CANARYglued`);
    const r = review(plan);
    expect(r.code).toBe(0);
    expect(r.report).toContain('terraform_data.files');
    expect(r.all).not.toContain('CANARY');
    const r2 = runCli(['--plan', `infra=${writeFile('update.json', updateOf(JSON.parse(fs.readFileSync(plan, 'utf8'))))}`], synthesisDir({ infra: tfDataStack() }));
    expect(r2.code).toBe(0);
    expect(r2.report).toContain('hf_…(redacted)');
    expect(r2.all).not.toContain('CANARY');
  });

  test('a config error does not echo a token-shaped value', () => {
    const e = new ConfigError([`tpu.reservation must be a reservation name, got '${HF_PREFIX}_CANARYconfig0123456789abcdef'`]);
    expect(e.message).toContain("got 'hf_\\u2026(redacted)'");
    expect(e.message).not.toContain('CANARY');
  });
});

/** The create of a real plan turned into an update from an empty input, so the attribute values are shown. */
function updateOf(plan: Record<string, unknown>): unknown {
  const [rc] = plan.resource_changes as Array<{ change: Record<string, unknown> }>;
  rc!.change = { ...rc!.change, actions: ['update'], before: { id: 'x', input: null, output: null, triggers_replace: null } };
  return plan;
}

describe('2. a change with an empty, missing or failed plan fails the review', () => {
  const head = () => ({ infra: asTf(infraJson()), 'rl-qwen3': asTf(pipelineJson()) });
  const base = () => {
    const infra = infraJson();
    infra.resource.google_container_node_pool.cpu.autoscaling.total_max_node_count = 8;
    return synthesisFromJson({ infra: asTf(infra), 'rl-qwen3': asTf(pipelineJson()) });
  };
  const withBase = (args: string[]) => runCli(['--base', 'main', ...args], synthesisDir(head()), () => base());

  test('the CPU pool changed and the plan of infra changes nothing: error, exit 1', () => {
    const r = withBase(['--plan', `infra=${real('no-changes')}`]);
    expect(r.code).toBe(1);
    expect(r.report).toContain('cpu-np');
    expect(r.report).toMatch(/synthesized configuration of stack infra changed \(changed\) but its plan .*no-changes\.json changes nothing/);
    expect(r.all).not.toMatch(/canary/i);
  });

  test('a changed stack without a plan, next to another stack with one: error', () => {
    const r = withBase(['--plan', `rl-qwen3=${real('no-changes')}`]);
    expect(r.code).toBe(1);
    expect(r.report).toContain('the synthesized configuration of stack infra changed (changed) but no plan of it was given');
  });

  test('a stack whose plan step failed: error, exit 1, even with nothing changed', () => {
    const r = runCli(['--plan-failed', 'infra'], synthesisDir(head()));
    expect(r.code).toBe(1);
    expect(r.report).toContain('the plan step for stack infra failed');
  });

  test('without any plan (a fork) the synthesized change alone is reviewed: exit 0', () => {
    const r = withBase([]);
    expect(r.code).toBe(0);
    expect(r.report).not.toContain('plan-missing');
  });
});

describe('3. condition checks of the plan', () => {
  test('a failing check is an error with its message; an unknown one a warning', () => {
    const r = review(real('checks'));
    expect(r.code).toBe(1);
    expect(r.report).toMatch(/🛑 error \| infra \| `check.reservation` \| check check.reservation fails: reservation has 16 chips free, the pool needs 32/);
    expect(r.report).toMatch(/⚠️ warning \| infra \| `check.pool_ready` \| check check.pool_ready is unknown until apply/);
    expect(r.report).toContain('🛑 Check `check.reservation`: fail (reservation has 16 chips free, the pool needs 32).');
  });

  test('a check result of a shape Terraform does not write is refused (exit 2)', () => {
    const plan = readReal('checks');
    (plan.checks as Array<Record<string, unknown>>)[0]!.status = 'maybe';
    const r = review(writeFile('checks.json', plan));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/checks\.json: checks\[0\] is not a check result Terraform writes: status: Invalid enum value/);
  });
});

describe('4. plan reader edges: refused (exit 2), naming the file and the place', () => {
  test('a duplicate key (the last would win and hide the replace)', () => {
    const text = fs.readFileSync(real('tainted'), 'utf8').replace('"actions": [', '"actions": ["no-op"], "actions": [');
    const r = review(writeFile('dup.json', text));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/dup\.json: duplicate key "actions" at resource_changes\[0\]\.change\.actions \(line \d+\)/);
  });

  test('a data source entry that deletes or creates', () => {
    const plan = readReal('tainted');
    const [rc] = plan.resource_changes as Array<Record<string, unknown>>;
    rc!.mode = 'data';
    const r = review(writeFile('data.json', plan));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('data.json: resource_changes[0] (terraform_data.train) is a data source with actions [delete, create]');
  });

  test('a format_version other than 1.x', () => {
    const r = review(writeFile('v9.json', { ...readReal('no-changes'), format_version: '9.0' }));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("v9.json: format_version '9.0' is not 1.x");
  });

  test('nesting deeper than a plan has', () => {
    const plan = readReal('update-unknown');
    ((plan.resource_changes as Array<{ change: { after: Record<string, unknown> } }>)[0]!.change.after).input = 'DEEP';
    const r = review(writeFile('deep.json', JSON.stringify(plan).replace('"DEEP"', `${'['.repeat(5000)}"x"${']'.repeat(5000)}`)));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/deep\.json: nesting deeper than 128 levels at resource_changes\[0\]\.change\.after\.input(\[0\])+ \(line 1\)/);
  });

  test('scanJson: keys in different objects, escaped quotes and brackets inside strings are no problem', () => {
    expect(scanJson('{"a": {"k": 1}, "b": {"k": "x\\"}{["}, "c": [{"k": 1}, {"k": 2}]}')).toBeUndefined();
    expect(scanJson('{"a": [{"k": 1}, {"k": 2, "k": 3}]}')).toEqual({ message: 'duplicate key "k"', line: 1, column: 27, path: 'a[1].k' });
  });
});

describe('5. stopping a running training fails the review', () => {
  const train = () => {
    const t = pipelineJson().resource.kubernetes_manifest.train;
    t.manifest.spec.replicatedJobs[0].template.spec.template.spec.containers[0].args.push('run_name=rl-qwen3-r1');
    return t;
  };
  // A kubernetes_manifest plan cannot be made without the kubernetes provider (no network here): the change is built
  // in Terraform's JSON plan shape, the status as JobSet v0.12.0 writes it (api/jobset/v1alpha2/jobset_types.go).
  const planWith = (status: unknown) => ({
    format_version: '1.2',
    terraform_version: '1.11.4',
    planned_values: {},
    resource_changes: [{
      address: 'kubernetes_manifest.train', mode: 'managed', type: 'kubernetes_manifest', name: 'train',
      change: { actions: ['delete', 'create'], before: { ...train(), object: { ...train().manifest, status } }, after: train() },
    }],
  });
  const stack = () => synthesisDir({ 'rl-qwen3': asTf(pipelineJson()) });

  test('the same run name, running now: an error (exit 1)', () => {
    const r = runCli(['--plan', `rl-qwen3=${writeFile('p.json', planWith({ replicatedJobsStatus: [{ name: 'slice', active: 1, ready: 1 }] }))}`], stack());
    expect(r.code).toBe(1);
    expect(r.report).toMatch(/🛑 error \| rl-qwen3 \| `kubernetes_manifest.train` \| training JobSet .* resumes run .* running now \(1 job\(s\) active\)/);
    expect(r.all).not.toMatch(/canary/i);
  });

  test('the same run name, finished: stays a warning (exit 0)', () => {
    const r = runCli(['--plan', `rl-qwen3=${writeFile('p.json', planWith({ terminalState: 'Completed', replicatedJobsStatus: [{ name: 'slice', active: 0, succeeded: 1 }] }))}`], stack());
    expect(r.code).toBe(0);
    expect(r.report).toMatch(/⚠️ warning \| rl-qwen3 \| `kubernetes_manifest.train` \| training JobSet .* resumes run/);
  });
});

describe('8. size: a plan over the limit is refused before it is read', () => {
  test('over --max-plan-mb: exit 2 naming the file and the limit', () => {
    const big = writeFile('big.json', ' '.repeat(2 * 2 ** 20) + fs.readFileSync(real('no-changes'), 'utf8'));
    const r = review(big, ['--max-plan-mb', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/big\.json is over the limit of 1 MiB \(--max-plan-mb\): refused at the first byte over/);
    expect(review(big).code).toBe(0);
  });
});

test("the rules' ids and severities: 'plan-checks' and 'plan-missing'", () => {
  const checks = reviewPlan('infra', 'checks.json', readReal('checks'));
  expect(reviewRules([], [], [checks]).filter((f) => f.rule === 'plan-checks').map((f) => [f.severity, f.address])).toEqual([
    ['error', 'check.reservation'],
    ['warning', 'check.pool_ready'],
  ]);
  expect(reviewRules([], [], [], undefined, undefined, ['infra']).filter((f) => f.rule === 'plan-missing').map((f) => f.severity)).toEqual(['error']);
  expect(reviewRules([], [], []).filter((f) => f.rule === 'plan-missing')).toEqual([]);
  // A stack gone from the synthesis cannot be planned: no finding for it.
  const removed = [{ stack: 'old', status: 'removed' as const, resources: [], renamed: [] }];
  expect(reviewRules([], [], [checks], undefined, removed).filter((f) => f.rule === 'plan-missing')).toEqual([]);
});

describe('6. --reviewed: the plan to apply must be the reviewed plan', () => {
  const args = (next: string, reviewed: string) => ['--plan', `infra=${next}`, '--reviewed', `infra=${reviewed}`];

  test('the same plan: exit 0; a plan with another value of a sensitive attribute: exit 1, named without the value', () => {
    expect(review(real('sensitive'), ['--reviewed', `infra=${real('sensitive')}`]).code).toBe(0);
    const other = readReal('sensitive');
    const [rc] = other.resource_changes as Array<{ change: { after: { input: Record<string, unknown> } } }>;
    rc!.change.after.input.token = 'sensitive-NEW-canary-9999';
    const r = runCli(args(writeFile('next.json', other), real('sensitive')), synthesisDir({ infra: tfDataStack() }));
    expect(r.code).toBe(1);
    expect(r.report).toMatch(/the plan of stack infra differs from the reviewed plan .*sensitive\.json: terraform_data\.login: after differ from the reviewed plan/);
    expect(r.all).not.toMatch(/canary/);
  });

  test('a check that changed status, an output, a change gone: each a difference', () => {
    const next = readReal('checks');
    (next.checks as Array<Record<string, unknown>>)[1]!.status = 'pass';
    next.resource_changes = [];
    next.output_changes = { extra: { actions: ['create'], before: null, after: 1 } };
    const r = runCli(args(writeFile('next.json', next), real('checks')), synthesisDir({ infra: tfDataStack() }));
    expect(r.code).toBe(1);
    expect(r.report).toContain('terraform_data.pool: reviewed, but not in the new plan; output extra: differs from the reviewed plan; check.reservation: pass (reviewed: fail)');
  });

  test('--reviewed without the new plan of that stack is a usage error (exit 2)', () => {
    const r = runCli(['--reviewed', `infra=${real('sensitive')}`], synthesisDir({ infra: tfDataStack() }));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--reviewed infra=');
    expect(r.stderr).toContain('needs the new plan of infra (--plan infra=<file>)');
  });
});

test("'plan-not-reviewed' is an error per stack whose plan differs", () => {
  const f = reviewRules([], [], [], undefined, undefined, [], [{ stack: 'infra', file: 'r.json', differences: ['x: after differ from the reviewed plan'] }]);
  expect(f.filter((x) => x.rule === 'plan-not-reviewed').map((x) => x.severity)).toEqual(['error']);
});
