/**
 * The teardown block of docs/operations.md works in its order against the bucket's `force_destroy`: the Google provider
 * refuses to delete a bucket that holds objects unless `force_destroy` is true ("Error trying to delete bucket %s
 * containing objects without `force_destroy` set to true": hashicorp/terraform-provider-google
 * google/services/storage/resource_storage_bucket.go, resourceStorageBucketDelete). So, with the default
 * (bucketSettings.forceDestroy false, as infra synthesizes it), the block must empty the bucket before `destroy -- infra`.
 */
import * as fs from 'fs';
import * as path from 'path';
import { configFile, synthStack } from '../util';

const ROOT = path.resolve(__dirname, '..', '..');

/** The shell lines of the Teardown section's code block (comments dropped). */
function teardownBlock(): string[] {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Teardown'));
  const block = /```bash\n([\s\S]*?)```/.exec(section)![1]!;
  return block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l !== '' && !l.startsWith('#'));
}

/**
 * Runs the lines against a model of the bucket after a run (it holds checkpoints): `gcloud storage rm` of `gs://$GCS_BUCKET/**`
 * empties it, `npm run destroy -- infra` deletes it or fails as the provider does. Returns the failure, if any.
 */
function run(lines: readonly string[], forceDestroy: boolean): string | undefined {
  let objects = true;
  for (const line of lines) {
    if (/^gcloud storage rm (--recursive |-r )?"gs:\/\/\$GCS_BUCKET\/\*\*"$/.test(line)) objects = false;
    if (/npm run destroy -- infra$/.test(line) && objects && !forceDestroy) {
      return 'Error trying to delete bucket containing objects without `force_destroy` set to true';
    }
  }
  return undefined;
}

test('the documented order empties the bucket, then destroys infra: it works with force_destroy false (the default)', () => {
  const lines = teardownBlock();
  const empty = lines.findIndex((l) => l.startsWith('gcloud storage rm'));
  const destroy = lines.findIndex((l) => l.endsWith('npm run destroy -- infra'));
  expect(empty).toBeGreaterThanOrEqual(0);
  expect(destroy).toBeGreaterThan(empty);
  // The pipelines go first (their JobSets write into the bucket), deletion protection is lifted before the destroy.
  expect(lines.findIndex((l) => l.startsWith('npm run destroy -- rl-'))).toBeLessThan(empty);
  expect(lines.findIndex((l) => l === 'DELETION_PROTECTION=false npm run deploy -- infra')).toBeLessThan(destroy);
  expect(run(lines, false)).toBeUndefined();
  // The order before this version (destroy, then remove the bucket) failed exactly there.
  const old = [lines[destroy]!, lines[empty]!];
  expect(run(old, false)).toMatch(/without `force_destroy` set to true/);
  expect(run(old, true)).toBeUndefined();
});

/**
 * A model of the stacks' dependencies: a pipeline stack and a serve stack find infra's cluster through data sources and
 * create their objects in it (a serve stack also its TPU pool in that cluster, its service account and bindings in the
 * project). Destroying infra while one remains orphans it: its destroy then cannot reach the cluster, and what it holds
 * in the project (the serve service account) stays, so the next serve deploy fails with 409. Returns the failure.
 */
function walkStacks(lines: readonly string[], deployed: readonly string[]): string | undefined {
  const remaining = new Set(deployed);
  const dependsOnInfra = (stack: string) => stack !== 'infra';
  for (const line of lines) {
    const m = /npm run destroy -- (\S+)$/.exec(line);
    if (!m) continue;
    const stack = m[1]!;
    if (!remaining.has('infra') && dependsOnInfra(stack)) return `${stack}: infra's cluster is gone; the destroy cannot reach it`;
    if (stack === 'infra') {
      const orphans = [...remaining].filter(dependsOnInfra);
      if (orphans.length > 0) return `infra destroyed before ${orphans.join(', ')}: orphaned (a serve stack's service account stays: the next deploy hits 409)`;
    }
    remaining.delete(stack);
  }
  return remaining.size === 0 ? undefined : `left: ${[...remaining].join(', ')}`;
}

test('serve stacks first, then pipelines, then infra: the documented order is one Terraform accepts, and removes everything', () => {
  const lines = teardownBlock();
  const destroys = lines.filter((l) => /npm run destroy -- /.test(l)).map((l) => /npm run destroy -- (\S+)$/.exec(l)![1]!);
  expect(destroys).toEqual(['serve-rl-qwen3', 'rl-qwen3', 'infra']);
  expect(walkStacks(lines, ['infra', 'rl-qwen3', 'serve-rl-qwen3'])).toBeUndefined();
  // The order before this version (no serve stack in the block) left the serve stack orphaned.
  expect(walkStacks(lines.filter((l) => !l.includes('serve-')), ['infra', 'rl-qwen3', 'serve-rl-qwen3'])).toMatch(/infra destroyed before serve-rl-qwen3: orphaned/);
  // And infra first fails the others.
  expect(walkStacks(['npm run destroy -- infra', 'npm run destroy -- serve-rl-qwen3'], ['infra', 'serve-rl-qwen3'])).toMatch(/orphaned/);
  // scripts/cdktf.mjs turns a serve stack named on the command line on, so the destroy line finds it without
  // serve.enabled in the config (__tests__/config/serve-by-name.test.ts runs it).
});

test("infra's bucket: force_destroy false by default, true with bucketSettings.forceDestroy (the block's skip note)", () => {
  const bucket = (tf: any) => Object.values<any>(tf.resource.google_storage_bucket)[0];
  expect(bucket(synthStack('infra')).force_destroy).toBe(false);
  const forced = configFile((c) => (c.bucketSettings.forceDestroy = true));
  expect(bucket(synthStack('infra', { CONFIG_FILE: forced })).force_destroy).toBe(true);
  expect(teardownBlock().find((l) => l.startsWith('gcloud storage rm'))).toBeDefined();
  expect(fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8')).toContain('skip with bucketSettings.forceDestroy');
});
