/**
 * The hostile corpus (issue 45, __tests__/review/corpus.ts): every plan through the real review CLI, in-process, on a
 * synthesized stack that declares the plan's addresses. Each must end with its exit code and say what it must; none
 * may print what it must not. Before this issue the review handled 16 of 66 (see the report of issue 45).
 */
import * as fs from 'fs';
import * as path from 'path';
import { cleanUp, runCli, synthesisDir, writeFile } from './harness';
import { corpus } from './corpus';

afterAll(cleanUp);

/** A synthesized stack declaring every managed address of the plan, so the plan belongs to it. */
function stackFor(plan: any): Record<string, unknown> {
  const resource: Record<string, Record<string, unknown>> = {};
  for (const c of Array.isArray(plan?.resource_changes) ? plan.resource_changes : []) {
    if (typeof c?.address !== 'string' || c.mode !== 'managed' || c.address.startsWith('module.')) continue;
    const [type, name] = c.address.replace(/\[[^\]]*\]$/, '').split('.');
    (resource[type] ??= {})[name] = {};
  }
  return { terraform: { backend: { local: { path: 'terraform.corpus.tfstate' } } }, resource };
}

const cases = corpus();

test('the corpus holds at least 60 plans, each class of issue 45', () => {
  expect(cases.length).toBeGreaterThanOrEqual(60);
  expect(new Set(cases.map((c) => c.cls))).toEqual(new Set(['stack folder', 'provisioner', 'workflow in place', 'workflow delete', 'helm values', 'rbac', 'iam', 'workload identity', 'secret copy', 'drift', 'outputs', 'incomplete', 'unseen step', 'crash']));
  expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
});

test.each(cases.map((c) => [c.id, c] as const))('%s', (_id, c) => {
  const dir = synthesisDir({ corpus: stackFor(c.plan) });
  for (const [name, text] of Object.entries(c.files ?? {})) fs.writeFileSync(path.join(dir, 'stacks', 'corpus', name), text);
  const r = runCli(['--plan', `corpus=${writeFile(`${c.id}.json`, c.plan)}`, '--quiet'], dir);
  expect({ code: r.code, says: c.says.test(r.all) }).toEqual({ code: c.code, says: true });
  if (c.never) expect(r.all).not.toMatch(c.never);
});
