/**
 * review/same-plan.ts, rule by rule, on real Terraform 1.11.4 plans (fixtures/real-plans) and
 * small texts: what makes the plan to apply differ from the reviewed one.
 */
import * as fs from 'fs';
import * as path from 'path';
import { planDifferences } from '../../review/same-plan';

const REAL = path.join(__dirname, 'fixtures', 'real-plans');
const real = (name: string) => JSON.parse(fs.readFileSync(path.join(REAL, `${name}.json`), 'utf8')) as Record<string, any>;

describe('planDifferences', () => {
  test('a plan against itself, or with keys in another order: no difference', () => {
    for (const f of ['sensitive', 'sensitive-shapes', 'checks', 'deposed', 'tainted', 'forget']) expect(planDifferences(real(f), real(f))).toEqual([]);
    const reordered = real('update-unknown');
    const c = reordered.resource_changes[0].change;
    reordered.resource_changes[0].change = Object.fromEntries(Object.entries(c).reverse());
    expect(planDifferences(real('update-unknown'), reordered)).toEqual([]);
  });

  test('each compared field of a change is named when it differs', () => {
    const base = real('tainted');
    const edits: Array<[string, (rc: any) => void]> = [
      ['actions', (rc) => (rc.change.actions = ['create', 'delete'])],
      ['action_reason', (rc) => (rc.action_reason = 'replace_by_request')],
      ['before', (rc) => (rc.change.before.input = 'other')],
      ['after', (rc) => (rc.change.after.input = 'other')],
      ['after_unknown', (rc) => (rc.change.after_unknown = {})],
      ['before_sensitive', (rc) => (rc.change.before_sensitive = { input: true })],
      ['after_sensitive', (rc) => (rc.change.after_sensitive = { input: true })],
      ['replace_paths', (rc) => (rc.change.replace_paths = [['input']])],
    ];
    for (const [field, edit] of edits) {
      const next = real('tainted');
      edit(next.resource_changes[0]);
      expect(planDifferences(base, next)).toEqual([`terraform_data.train: ${field} differ from the reviewed plan`]);
    }
  });

  test('a change added or gone, by address and deposed key; no-op and read entries do not count', () => {
    const deposed = real('deposed');
    const live = deposed.resource_changes.find((rc: any) => !rc.deposed);
    const old = deposed.resource_changes.find((rc: any) => rc.deposed);
    expect(old).toBeDefined();
    const withoutDeposed = { ...deposed, resource_changes: [live] };
    expect(planDifferences(deposed, withoutDeposed)).toEqual([`terraform_data.pool (deposed ${old.deposed}): reviewed, but not in the new plan`]);
    expect(planDifferences(withoutDeposed, deposed)).toEqual([`terraform_data.pool (deposed ${old.deposed}): ["delete"] is not in the reviewed plan`]);
    const quiet = (actions: string[]) => ({ ...deposed, resource_changes: [live, { address: 'data.x.y', mode: 'data', change: { actions } }, { address: 'terraform_data.z', change: { actions: ['no-op'] } }] });
    expect(planDifferences(withoutDeposed, quiet(['read']))).toEqual([]);
    expect(planDifferences(withoutDeposed, quiet(['no-op']))).toEqual([]);
    expect(planDifferences(withoutDeposed, quiet(['read', 'delete']))).toEqual(['data.x.y: ["read","delete"] is not in the reviewed plan']);
    // An entry without actions changes nothing to compare (the plan reader refuses it before: actions has min 1).
    expect(planDifferences({ resource_changes: [] }, { resource_changes: [{ address: 'a.b', change: {} }] })).toEqual([]);
  });

  test('what is not a plan has no changes to compare; malformed entries are skipped (the reader refuses them first)', () => {
    expect(planDifferences(null, undefined)).toEqual([]);
    expect(planDifferences({ resource_changes: 'x' }, { resource_changes: [7, { address: 'a.b' }, { address: 'a.c', change: [] }] })).toEqual([]);
    expect(planDifferences([], real('tainted'))).toEqual(['terraform_data.train: ["delete","create"] is not in the reviewed plan']);
  });

  test('outputs and checks', () => {
    const base = real('checks');
    const next = real('checks');
    next.checks.find((c: any) => c.address.to_display === 'check.pool_ready').status = 'fail';
    next.output_changes = { a: { actions: ['create'], after: 1 } };
    expect(planDifferences(base, next)).toEqual(['output a: differs from the reviewed plan', 'check.pool_ready: fail (reviewed: unknown)']);
    const gone = real('checks');
    gone.checks = [{ address: { to_display: 'check.new' }, status: 'pass' }];
    expect(planDifferences(base, gone)).toEqual(['check.new: pass (reviewed: absent)']);
    expect(planDifferences(real('sensitive'), { ...real('sensitive'), output_changes: undefined })).toEqual(['output token: differs from the reviewed plan']);
  });
});
