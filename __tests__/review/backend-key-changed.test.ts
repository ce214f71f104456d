/** backend-key-changed: the review says when a stack's state would be read from somewhere else (stacks/backend.ts). */
import { diffSyntheses } from '../../review/diff';
import { review } from '../../review/findings';
import { synthesisFromJson } from '../../review/load';
import { extractStack } from '../../review/model';
import { backendKeyChanged } from '../../review/rules/backend-key-changed';
import { legacyStatePrefix, localStatePath, statePrefix } from '../../stacks/backend';
import { asTf, infraJson } from './fixtures';

type Json = Record<string, any>;
const scope = { project: 'proj', clusterName: 'dev' };

function withBackend(backend: Json): Json {
  const json = infraJson();
  json.terraform = { ...json.terraform, backend };
  return json;
}

function findings(base: Json, head: Json) {
  const diffs = diffSyntheses(synthesisFromJson({ infra: asTf(base) }), synthesisFromJson({ infra: asTf(head) }));
  return { diffs, found: review([extractStack('infra', asTf(head))], [], [], undefined, diffs).filter((f) => f.rule === 'backend-key-changed') };
}

test('a local state file that moves to the per-cluster key is an error (no plan shows it moved) naming both files and the command', () => {
  const before = { local: { path: localStatePath('infra', '/repo/cdktf.out', '/repo') } };
  const after = { local: { path: localStatePath('infra', '/repo/cdktf.out', '/repo', scope) } };
  const { diffs, found } = findings(withBackend(before), withBackend(after));
  expect(diffs[0]).toMatchObject({ stack: 'infra', status: 'changed', resources: [], backend: { before, after } });
  expect(found).toEqual([
    {
      rule: 'backend-key-changed',
      severity: 'error',
      stack: 'infra',
      address: 'terraform.backend',
      message:
        'the state of infra moves from local ../../../terraform.infra.tfstate to local ../../../terraform.proj.dev.infra.tfstate; a plan that finds no state there creates every resource again',
      fix: 'move the state before the first plan of this change: npm run deploy -- infra --migrate-state (with the environment\'s CONFIG_FILE; docs/operations.md, "Upgrading to per-cluster identities and state keys")',
    },
  ]);
});

test('a GCS prefix change and a switch from local to GCS are found too', () => {
  const gcs = (prefix: string) => ({ gcs: { bucket: 'tf-state', prefix } });
  const moved = findings(withBackend(gcs(legacyStatePrefix('infra'))), withBackend(gcs(statePrefix(scope, 'infra')))).found;
  expect(moved.map((f) => f.message)).toEqual([
    'the state of infra moves from gcs gs://tf-state/tpu-post-training/infra to gcs gs://tf-state/tpu-post-training/proj/dev/infra; a plan that finds no state there creates every resource again',
  ]);
  const toGcs = findings(withBackend({ local: { path: 'terraform.infra.tfstate' } }), withBackend(gcs('tpu-post-training/proj/dev/infra'))).found;
  expect(toGcs.map((f) => f.message)).toEqual([
    'the state of infra moves from local terraform.infra.tfstate to gcs gs://tf-state/tpu-post-training/proj/dev/infra; a plan that finds no state there creates every resource again',
  ]);
});

test('an unchanged backend, a new stack and no --base say nothing', () => {
  const same = { local: { path: 'terraform.proj.dev.infra.tfstate' } };
  const { diffs, found } = findings(withBackend(same), withBackend(same));
  expect(diffs[0]).toMatchObject({ status: 'unchanged' });
  expect(diffs[0]).not.toHaveProperty('backend');
  expect(found).toEqual([]);
  const added = diffSyntheses(synthesisFromJson({}), synthesisFromJson({ infra: asTf(withBackend(same)) }));
  expect(added[0]).not.toHaveProperty('backend');
  expect(review([extractStack('infra', asTf(withBackend(same)))]).filter((f) => f.rule === 'backend-key-changed')).toEqual([]);
});

test("CI refuses until the state has moved: a plan of the stack that only creates keeps the error; one that finds resources makes it a note", () => {
  const before = { local: { path: localStatePath('infra', '/repo/cdktf.out', '/repo') } };
  const after = { local: { path: localStatePath('infra', '/repo/cdktf.out', '/repo', scope) } };
  const diffs = diffSyntheses(synthesisFromJson({ infra: asTf(withBackend(before)) }), synthesisFromJson({ infra: asTf(withBackend(after)) }));
  const counts = (c: Partial<Record<string, number>>) => ({ create: 0, update: 0, replace: 0, delete: 0, read: 0, 'no-op': 0, forget: 0, deposed: 0, ...c });
  const plan = (c: Partial<Record<string, number>>, errored = false) =>
    ({ stack: 'infra', file: 'infra.json', errored, changes: [], counts: counts(c), foreign: [], workingDir: 'x', checks: [] }) as any;
  const judged = (p: any) => backendKeyChanged.check({ models: [], texts: [], plans: [p], prices: {} as any, diffs });
  expect(judged(plan({ create: 40 }))[0]).toMatchObject({ severity: 'error' });
  expect(judged(plan({ 'no-op': 39, update: 1 }, true))[0]).toMatchObject({ severity: 'error' });
  const moved = judged(plan({ 'no-op': 39, update: 1, create: 1 }))[0]!;
  expect(moved.severity).toBe('note');
  expect(moved.message).toContain('the plan of infra finds 40 resources there: it has moved');
});
