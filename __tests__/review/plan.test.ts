import * as fs from 'fs';
import * as path from 'path';
import { planAction, reviewPlan } from '../../review/plan';

function fixture(name: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'plans', `${name}.json`), 'utf8'));
}

function reviewed(name: string, stack = 'infra') {
  return reviewPlan(stack, `${name}.json`, fixture(name));
}

test('actions lists map to create / update / replace / delete', () => {
  expect(planAction(['create'])).toBe('create');
  expect(planAction(['update'])).toBe('update');
  expect(planAction(['delete', 'create'])).toBe('replace');
  expect(planAction(['create', 'delete'])).toBe('replace');
  expect(planAction(['delete'])).toBe('delete');
  expect(planAction(['no-op'])).toBe('no-op');
  expect(planAction(['read'])).toBe('read');
});

test('a TPU pool replaced by a topology change is an error worded in slice terms', () => {
  // GIVEN a plan that replaces tpu-v6e-32-0 (4x8 -> 4x4)
  const plan = reviewed('replace-tpu-pool');
  // THEN the change reads like the slice, and the replacement is an error naming what forced it
  expect(plan.counts).toMatchObject({ replace: 1, 'no-op': 1 });
  const [change] = plan.changes;
  expect(change).toMatchObject({ action: 'replace', replaceOrder: 'delete-first', replacePaths: ['placement_policy[0].tpu_topology'] });
  expect(change!.summary).toEqual(['TPU pool tpu-v6e-32-0: topology 4x8 -> 4x4, chips 32 -> 16, hosts 8 -> 4, node count 8 -> 4']);
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

test('a file that is not plan JSON is rejected with the command that makes one', () => {
  expect(() => reviewPlan('infra', 'x.json', { foo: 1 })).toThrow(/terraform show -json plan/);
});
