/**
 * review/json-scan.ts and review/same-plan.ts, rule by rule, on real Terraform 1.11.4 plans (fixtures/real-plans) and
 * small texts: what the plan reader refuses, and what makes the plan to apply differ from the reviewed one.
 */
import * as fs from 'fs';
import * as path from 'path';
import { MAX_JSON_DEPTH, scanJson } from '../../review/json-scan';
import { planDifferences } from '../../review/same-plan';

const REAL = path.join(__dirname, 'fixtures', 'real-plans');
const real = (name: string) => JSON.parse(fs.readFileSync(path.join(REAL, `${name}.json`), 'utf8')) as Record<string, any>;

describe('scanJson', () => {
  test('every real plan passes', () => {
    for (const f of fs.readdirSync(REAL).filter((x) => x.endsWith('.json'))) expect([f, scanJson(fs.readFileSync(path.join(REAL, f), 'utf8'))]).toEqual([f, undefined]);
  });

  test.each([
    ['{"a": 1, "a": 2}', { message: 'duplicate key "a"', line: 1, path: 'a' }],
    ['{\n"x": {"a": [1, {"b": 1}]},\n"x": 2}', { message: 'duplicate key "x"', line: 3, path: 'x' }],
    ['[{"a": 1}, {"a": 1}, {"b": 1, "b": 2}]', { message: 'duplicate key "b"', line: 1, path: '[2].b' }],
    ['{"a": {"k": 1, "q": [[], {"k": 2, "k": 3}]}}', { message: 'duplicate key "k"', line: 1, path: 'a.q[1].k' }],
    ['{"a\\"b": 1, "a\\"b": 2}', { message: 'duplicate key "a"b"', line: 1, path: 'a"b' }],
    [`{"${'k'.repeat(100)}": 1, "${'k'.repeat(100)}": 1}`, { message: `duplicate key "${'k'.repeat(80)}"`, line: 1, path: 'k'.repeat(100) }],
  ])('%s', (text, problem) => {
    expect(scanJson(text)).toEqual(problem);
  });

  test.each([
    '{"a": "a", "b": "a"}', // a value equal to a key is no key
    '{"a": "x\\\\", "b": 1}', // an escaped backslash before the closing quote
    '{"a": "}{,\\"a\\": 1", "b": {"a": 1}}', // brackets, commas and quotes inside a string
    '[["a", "a"], {"a": 1}]',
    '{"a": {}, "b": [], "c": [{}, {}]}',
  ])('no problem: %s', (text) => {
    expect(scanJson(text)).toBeUndefined();
  });

  test('the depth limit: exactly MAX_JSON_DEPTH levels pass, one more is refused at its place', () => {
    const nest = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;
    expect(scanJson(nest(MAX_JSON_DEPTH))).toBeUndefined();
    expect(scanJson(`{"a":\n${nest(MAX_JSON_DEPTH)}}`)).toEqual({ message: `nesting deeper than ${MAX_JSON_DEPTH} levels`, line: 2, path: `a${'[0]'.repeat(MAX_JSON_DEPTH - 1)}` });
    expect(scanJson(nest(3), 2)).toEqual({ message: 'nesting deeper than 2 levels', line: 1, path: '[0][0]' });
    expect(scanJson('[[', 1)).toEqual({ message: 'nesting deeper than 1 levels', line: 1, path: '[0]' });
    expect(scanJson('{"a": 1, "b": 2}', 1)).toBeUndefined();
  });
});

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
