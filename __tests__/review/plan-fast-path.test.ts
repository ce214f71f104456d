/**
 * review/plan.ts reads each `resource_changes` entry with a quick shape check first and RawChangeSchema (zod) only for
 * what it does not pass: the quick check must never accept what the schema refuses, or a malformed entry would be
 * read as a change. Every entry of the genuine Terraform 1.11.4 plans, and each of them with one field broken in
 * every way below, is checked against the schema.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseJsonExact } from '../../review/json-scan';
import { plainTerraformChange, RawChangeSchema } from '../../review/plan';
import { ExactNumber } from '../../review/values';

const REAL = path.join(__dirname, 'fixtures', 'real-plans');
const entries = fs.readdirSync(REAL).filter((f) => f.endsWith('.json')).flatMap((f) => {
  const plan = parseJsonExact(fs.readFileSync(path.join(REAL, f), 'utf8')) as { resource_changes?: unknown[] };
  return (plan.resource_changes ?? []).map((e, i) => [`${f} resource_changes[${i}]`, e] as const);
});

/** Values a field can be given that JSON (with exact numbers) can hold. */
const ODD: readonly unknown[] = [
  undefined, null, '', 'x', 0, -1, 1.5, true, false, [], [''], [1], [null], {}, { a: 1 }, { a: null }, new ExactNumber('1e400'), [[]], [['a', 1]], [['a', null]], [[true]],
  ['create'], ['update', 'bogus'], { id: 1 }, { id: 'x', unknown: 'yes' }, { id: 'x', unknown: true }, [true, { a: [false] }], { a: { b: 'no' } },
];

const TOP = ['address', 'mode', 'type', 'name', 'deposed', 'action_reason', 'previous_address', 'change'];
const CHANGE = ['actions', 'before', 'after', 'after_unknown', 'before_sensitive', 'after_sensitive', 'replace_paths', 'importing'];

/** The entry with `key` (of the entry, or of its `change`) set to `value` (left out for undefined). */
function broken(entry: Record<string, unknown>, where: 'top' | 'change', key: string, value: unknown): unknown {
  const set = (o: Record<string, unknown>) => {
    const out = { ...o };
    if (value === undefined) delete out[key];
    else out[key] = value;
    return out;
  };
  return where === 'top' ? set(entry) : { ...entry, change: set(entry.change as Record<string, unknown>) };
}

test('the genuine plans have entries, and the quick check passes every one of them', () => {
  expect(entries.length).toBeGreaterThan(20);
  for (const [where, e] of entries) expect([where, plainTerraformChange(e)]).toEqual([where, true]);
});

test('the quick check accepts no entry the schema refuses (each field broken in every way)', () => {
  let refusedBySchema = 0;
  for (const [where, e] of entries) {
    const entry = e as Record<string, unknown>;
    const variants = [
      ...TOP.flatMap((k) => ODD.map((v) => [`${k}=${JSON.stringify(v)}`, broken(entry, 'top', k, v)] as const)),
      ...CHANGE.flatMap((k) => ODD.map((v) => [`change.${k}=${JSON.stringify(v)}`, broken(entry, 'change', k, v)] as const)),
      ['null', null], ['a list', [entry]], ['a string', 'x'],
    ] as const;
    for (const [what, variant] of variants) {
      const schema = RawChangeSchema.safeParse(variant).success;
      if (!schema) refusedBySchema++;
      if (plainTerraformChange(variant)) expect([where, what, schema]).toEqual([where, what, true]);
    }
  }
  // The variants do break entries (a test whose variants all pass would guard nothing).
  expect(refusedBySchema).toBeGreaterThan(1000);
});
