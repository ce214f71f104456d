import * as fs from 'fs';
import * as path from 'path';
import { review } from '../../review/findings';
import { KNOWN_AFTER_APPLY, planAction, PlanReview, reviewPlan, withUnknowns } from '../../review/plan';

function fixture(name: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'plans', `${name}.json`), 'utf8'));
}

function reviewed(name: string, stack = 'infra') {
  const plan = reviewPlan(stack, `${name}.json`, fixture(name));
  return { ...plan, findings: findingsOf(plan) };
}

/** The plan rules' findings for one plan (no stacks). */
function findingsOf(plan: PlanReview) {
  return review([], [], [plan]);
}

/** Real `terraform show -json` output of Terraform 1.11.4 (fixtures/real-plans/make.sh). */
function real(name: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'real-plans', `${name}.json`), 'utf8'));
}

test('actions lists map to create / update / replace / delete', () => {
  expect(planAction(['create'])).toBe('create');
  expect(planAction(['update'])).toBe('update');
  expect(planAction(['delete', 'create'])).toBe('replace');
  expect(planAction(['create', 'delete'])).toBe('replace');
  expect(planAction(['delete'])).toBe('delete');
  expect(planAction(['no-op'])).toBe('no-op');
  expect(planAction(['read'])).toBe('read');
  expect(planAction(['forget'])).toBe('forget');
  expect(planAction(['create', 'forget'])).toBe('forget');
});

test('a TPU pool replaced by a topology change is an error worded in slice terms', () => {
  // GIVEN a plan that replaces tpu-v6e-32-0 (4x8 -> 4x4)
  const plan = reviewed('replace-tpu-pool');
  // THEN the change reads like the slice, and the replacement is an error naming what forced it
  expect(plan.counts).toMatchObject({ replace: 1, 'no-op': 1 });
  const [change] = plan.changes;
  expect(change).toMatchObject({ action: 'replace', replaceOrder: 'delete-first', replacePaths: ['placement_policy[0].tpu_topology'] });
  expect(change!.summary).toEqual([
    'TPU pool tpu-v6e-32-0: topology 4x8 -> 4x4, chips 32 -> 16, hosts 8 -> 4, node count 8 -> 4 (Terraform replaces the pool: placement_policy cannot change in place)',
  ]);
  const [f] = plan.findings;
  expect(f).toMatchObject({ severity: 'error', rule: 'plan-destroys-tpu-pool', address: 'google_container_node_pool.tpu-v6e-32-0_pool_37EE0668' });
  expect(f!.message).toMatch(/the slice is replaced \(forced by placement_policy\[0\]\.tpu_topology\)/);
});

test('a training JobSet replaced is an error (it re-runs training); a CPU step replaced is a warning', () => {
  const plan = reviewed('replace-training-jobset', 'rl-qwen3');
  expect(plan.counts).toMatchObject({ replace: 2 });
  const train = plan.findings.find((f) => f.address === 'kubernetes_manifest.train')!;
  expect(train).toMatchObject({ severity: 'error', rule: 'plan-reruns-training' });
  expect(train.message).toBe(
    'training JobSet qwen3-8b-train is replaced (forced by manifest.spec.replicatedJobs): training runs again from the start on 32 chips',
  );
  const hf = plan.findings.find((f) => f.address === 'kubernetes_manifest.to-hf')!;
  expect(hf).toMatchObject({ severity: 'warning', rule: 'plan-reruns-step' });
  expect(plan.changes.find((c) => c.address === 'kubernetes_manifest.train')!.summary[0]).toMatch(
    /JobSet qwen3-8b-train: images us-docker.pkg.dev\/x\/maxtext:2025.10.01 -> us-docker.pkg.dev\/x\/maxtext:2025.11.01/,
  );
  // data sources are not changes
  expect(plan.changes.map((c) => c.address)).not.toContain('data.google_client_config.cc');
});

describe('a replaced training JobSet says whether it resumes its run or trains anew (run_name before and after)', () => {
  const withRuns = (before: string, after: string) => {
    const plan = fixture('replace-training-jobset') as any;
    const train = plan.resource_changes.find((rc: any) => rc.address === 'kubernetes_manifest.train');
    for (const [side, run] of [['before', before], ['after', after]] as const) {
      const c = train.change[side].manifest.spec.replicatedJobs[0].template.spec.template.spec.containers[0];
      c.args = [`${c.args[0]} run_name=${run}`];
    }
    return review([], [], [reviewPlan('rl-qwen3', 'p.json', plan)]).find((f) => f.address === 'kubernetes_manifest.train')!;
  };

  test('the same run name: a warning that it resumes at the last checkpoint', () => {
    const f = withRuns('rl-3f9a1c2b7d10', 'rl-3f9a1c2b7d10');
    expect(f).toMatchObject({ severity: 'warning', rule: 'plan-reruns-training' });
    expect(f.message).toBe(
      'training JobSet qwen3-8b-train is replaced (forced by manifest.spec.replicatedJobs): it resumes run rl-3f9a1c2b7d10 at its last checkpoint on 32 chips (the same run name, so MaxText restores the newest checkpoint under trained/rl-3f9a1c2b7d10/)',
    );
    // What a resume repeats, said truthfully (not "only the steps since that checkpoint").
    expect(f.fix).toContain('SFT also reads its data again from the first example (examples trained twice: min(checkpoint step, steps left) x the global batch)');
    expect(f.fix).toContain("RL's first step samples with the base weights until the first weight sync");
  });

  test('another run name: an error that it trains anew, naming the option that would resume instead', () => {
    const f = withRuns('rl-3f9a1c2b7d10', 'rl-0123456789ab');
    expect(f).toMatchObject({ severity: 'error', rule: 'plan-reruns-training' });
    expect(f.message).toBe(
      'training JobSet qwen3-8b-train is replaced (forced by manifest.spec.replicatedJobs): it trains anew into rl-0123456789ab on 32 chips (the spec changed; run rl-3f9a1c2b7d10 and its export are kept)',
    );
    expect(f.fix).toContain("set pipelines.<name>.resumeRun to 'rl-3f9a1c2b7d10'");
  });
});

test('deleting the bucket is an error', () => {
  const plan = reviewed('delete-bucket');
  expect(plan.changes[0]).toMatchObject({ action: 'delete', summary: ['bucket proj-post-training removed'] });
  expect(plan.findings).toEqual([
    expect.objectContaining({ severity: 'error', rule: 'plan-deletes-bucket', address: 'google_storage_bucket.bucket_3056591E' }),
  ]);
});

test('replacing the cluster is an error, create-before-destroy order reported', () => {
  const plan = reviewed('replace-cluster');
  expect(plan.changes[0]).toMatchObject({ action: 'replace', replaceOrder: 'create-first', replacePaths: ['location'] });
  expect(plan.findings[0]).toMatchObject({ severity: 'error', rule: 'plan-destroys-cluster' });
});

test('plain updates are not errors; creating a training JobSet is a note', () => {
  const plan = reviewed('update-only', 'mixed');
  expect(plan.counts).toMatchObject({ update: 2, create: 1, 'no-op': 1, replace: 0, delete: 0 });
  expect(plan.findings.filter((f) => f.severity !== 'note')).toEqual([]);
  expect(plan.findings.find((f) => f.rule === 'plan-starts-training')!.message).toBe(
    'JobSet qwen3-8b-train will be created: it holds 32 TPU chips for up to 24h',
  );
  const cpu = plan.changes.find((c) => c.address.startsWith('google_container_node_pool.cpu'))!;
  expect(cpu.summary).toEqual(['CPU pool cpu-np: size 0-4 nodes -> 0-6 nodes']);
  const bucket = plan.changes.find((c) => c.address.startsWith('google_storage_bucket'))!;
  expect(bucket.attributes).toEqual([{ path: 'labels.team', before: undefined, after: '"ml"' }]);
});

test('a file that is not plan JSON is rejected naming the file and the command that makes one', () => {
  expect(() => reviewPlan('infra', 'x.json', { foo: 1 })).toThrow(/^x\.json: not a Terraform JSON plan .*terraform show -json <planfile>/);
  expect(() => reviewPlan('infra', 'x.json', { format_version: '1.2', resource_changes: {} })).toThrow('x.json: resource_changes must be a list, got object');
});

describe('real Terraform 1.11.4 plans (built-in terraform_data only)', () => {
  test('no resource_changes at all is "no changes", not a failure', () => {
    const plan = reviewPlan('infra', 'no-changes.json', real('no-changes'));
    expect(plan).toMatchObject({ terraformVersion: '1.11.4', errored: false, changes: [] });
    expect(findingsOf(plan)).toEqual([]);
  });

  test('after_unknown values read as known after apply, not as removed', () => {
    const plan = reviewPlan('infra', 'update-unknown.json', real('update-unknown'));
    expect(plan.counts).toMatchObject({ update: 1 });
    expect(plan.changes[0]!.attributes).toEqual([
      { path: 'input.batch_size', before: '40', after: '80' },
      { path: 'output', before: '{"batch_size":40}', after: JSON.stringify(KNOWN_AFTER_APPLY) },
    ]);
  });

  test('a tainted resource is replaced with action_reason replace_because_tainted', () => {
    const plan = reviewPlan('infra', 'tainted.json', real('tainted'));
    expect(plan.changes[0]).toMatchObject({ action: 'replace', reason: 'replace_because_tainted', replaceOrder: 'delete-first' });
  });

  test('a deposed object delete is reported as such, apart from the current object', () => {
    const plan = reviewPlan('infra', 'deposed.json', real('deposed'));
    expect(plan.counts).toMatchObject({ replace: 1, delete: 0, deposed: 1 });
    const deposed = plan.changes.find((c) => c.deposed)!;
    expect(deposed).toMatchObject({ address: 'terraform_data.pool', action: 'delete' });
    expect(deposed.summary[0]).toMatch(/^deposed object [0-9a-f]{8} of terraform_data\.pool \(left by a create-before-destroy replacement that did not finish\) is deleted$/);
    const f = findingsOf(plan).find((x) => x.rule === 'plan-deletes-deposed')!;
    expect(f).toMatchObject({ severity: 'note', address: 'terraform_data.pool' });
  });

  test('forget is counted', () => {
    const plan = reviewPlan('infra', 'forget.json', real('forget'));
    expect(plan.counts).toMatchObject({ forget: 1, delete: 0 });
    expect(plan.changes[0]).toMatchObject({ action: 'forget', reason: 'delete_because_no_resource_config', after: undefined });
  });

  test('errored: true is an error finding', () => {
    const plan = reviewPlan('infra', 'errored.json', real('errored'));
    expect(plan.errored).toBe(true);
    const [f] = findingsOf(plan);
    expect(f).toMatchObject({ severity: 'error', rule: 'plan-errored', stack: 'infra' });
    expect(f!.message).toMatch(/^the plan in errored\.json is errored \(errored: true\): Terraform stopped planning part way/);
  });
});

test('withUnknowns marks nested unknowns and leaves known values', () => {
  expect(withUnknowns({ a: 1, b: [{ c: 2 }] }, { b: [{ d: true }], e: true })).toEqual({ a: 1, b: [{ c: 2, d: KNOWN_AFTER_APPLY }], e: KNOWN_AFTER_APPLY });
  expect(withUnknowns(undefined, undefined)).toBeUndefined();
});

test('an in-place node_count change of a multi-host TPU pool is an error saying what GKE does', () => {
  // GIVEN a plan that updates tpu-v6e-32-0 in place: node_count 8 -> 4, topology still 4x8 (no replacement)
  const plan = reviewed('update-tpu-node-count');
  expect(plan.changes[0]).toMatchObject({ action: 'update' });
  expect(plan.changes[0]!.summary).toEqual(['TPU pool tpu-v6e-32-0: node count 8 -> 4 (Terraform changes node_count in place, which a multi-host slice cannot take)']);
  const f = plan.findings.find((x) => x.rule === 'plan-resizes-tpu-slice')!;
  expect(f).toMatchObject({ severity: 'error', address: 'google_container_node_pool.tpu-v6e-32-0_pool_37EE0668' });
  expect(f.message).toBe(
    'TPU pool tpu-v6e-32-0 (4x8, 32 chips, 8 hosts) is updated in place: node_count 8 -> 4: Terraform resizes the pool in place (NodePools.SetSize), ' +
      'but a multi-host slice is atomic: its node count is fixed by the topology and nodes cannot be added or removed after creation. ' +
      'GKE fails the update or leaves a slice its workloads cannot use',
  );
  expect(f.fix).toMatch(/^keep node_count = 8/);
  // instance_group_urls is known only after apply: shown so, not as removed
  expect(plan.changes[0]!.attributes).toEqual(expect.arrayContaining([{ path: 'instance_group_urls', before: undefined, after: JSON.stringify(KNOWN_AFTER_APPLY) }]));
});

test('other in-place updates of a multi-host TPU pool are a warning; a machine type change is an error', () => {
  const raw = fixture('update-tpu-node-count') as any;
  const change = raw.resource_changes.find((r: any) => r.change.actions[0] === 'update');
  change.change.after.node_count = 8;
  change.change.after.node_config[0].labels = { team: 'ml' };
  let findings = findingsOf(reviewPlan('infra', 'p.json', raw));
  expect(findings.map((f) => [f.rule, f.severity])).toEqual([['plan-updates-tpu-slice', 'warning']]);
  expect(findings[0]!.message).toMatch(/is updated in place \(node_config\.labels\): GKE applies node changes to all VMs/);
  change.change.after.node_config[0].machine_type = 'ct6e-standard-8t';
  findings = findingsOf(reviewPlan('infra', 'p.json', raw));
  expect(findings.find((f) => f.rule === 'plan-resizes-tpu-slice')!.message).toMatch(/node_config\.machine_type: Terraform changes the machine type in place \(UpdateNodePool\)/);
});

test('a JobSet tainted by a timed-out wait shows the exact terraform untaint command', () => {
  const plan = reviewPlan('rl-qwen3', 'tainted.json', fixture('tainted-training-jobset'), { workingDir: 'cdktf.out/stacks/rl-qwen3' });
  const findings = findingsOf(plan);
  expect(findings.map((f) => f.rule)).toEqual(['plan-tainted-jobset']);
  expect(findings[0]).toMatchObject({ severity: 'error', address: 'kubernetes_manifest.train' });
  expect(findings[0]!.message).toMatch(/^JobSet qwen3-8b-train \(training, 32 chips\) is tainted, so Terraform deletes and re-creates it/);
  expect(findings[0]!.fix).toBe(
    "if the JobSet is still running or completed, keep it: `cd cdktf.out/stacks/rl-qwen3 && terraform untaint 'kubernetes_manifest.train'`, then plan again",
  );
  // a tainted CPU step (here the export) is a warning: re-running it holds no slice
  const raw = fixture('replace-training-jobset') as any;
  const hf = raw.resource_changes.find((r: any) => r.address === 'kubernetes_manifest.to-hf');
  hf.action_reason = 'replace_because_tainted';
  const cpu = findingsOf(reviewPlan('rl-qwen3', 'p.json', raw)).filter((f) => f.rule === 'plan-tainted-jobset');
  expect(cpu).toEqual([expect.objectContaining({ severity: 'warning', address: 'kubernetes_manifest.to-hf' })]);
  expect(cpu[0]!.fix).toContain("terraform untaint 'kubernetes_manifest.to-hf'");
});

test('a plan whose addresses belong to another stack is an error naming that stack', () => {
  const stacks = new Map([
    ['infra', new Set(['google_container_node_pool.tpu-v6e-32-0_pool_37EE0668', 'google_container_cluster.gke'])],
    ['rl-qwen3', new Set(['kubernetes_manifest.train', 'kubernetes_manifest.to-hf'])],
  ]);
  const plan = reviewPlan('infra', 'rl.json', fixture('replace-training-jobset'), { stackAddresses: stacks });
  expect(plan).toMatchObject({ foreign: ['kubernetes_manifest.train', 'kubernetes_manifest.to-hf'], likelyStack: 'rl-qwen3' });
  const f = findingsOf(plan).find((x) => x.rule === 'plan-wrong-stack')!;
  expect(f).toMatchObject({ severity: 'error', stack: 'infra', address: '(plan)' });
  expect(f.message).toBe('rl.json plans 2 resource(s) that stack infra does not synthesize (kubernetes_manifest.train, kubernetes_manifest.to-hf): it looks like the plan of rl-qwen3');
  expect(f.fix).toBe('pass it as --plan rl-qwen3=rl.json');
  // the right stack: nothing foreign; a delete of a resource removed from the config is not foreign either
  expect(reviewPlan('rl-qwen3', 'rl.json', fixture('replace-training-jobset'), { stackAddresses: stacks }).foreign).toEqual([]);
  expect(reviewPlan('infra', 'b.json', fixture('delete-bucket'), { stackAddresses: stacks }).foreign).toEqual([]);
});
