/**
 * Issue 47 item 5: a sensitive value that did not change is never reported as changed (review/plan.ts). The plans are
 * `terraform show -json` shapes of Terraform 1.11.4 (internal/command/jsonplan/plan.go: `before_sensitive` and
 * `after_sensitive` are marks of each side, `true` for a whole value or an object/array of marks); only the marks and
 * the sibling values move between the cases.
 */
import { reviewPlan, SENSITIVE_CHANGED } from '../../review/plan';
import { REDACTED } from '../../util/redact';

/** A one-resource update plan (`google_secret_manager_secret.login`) with the given sides and marks. */
function plan(before: unknown, after: unknown, beforeSensitive: unknown, afterSensitive: unknown) {
  return {
    format_version: '1.2',
    terraform_version: '1.11.4',
    resource_changes: [
      {
        address: 'google_secret_manager_secret.login',
        mode: 'managed',
        type: 'google_secret_manager_secret',
        name: 'login',
        provider_name: 'registry.terraform.io/hashicorp/google',
        change: { actions: ['update'], before, after, after_unknown: {}, before_sensitive: beforeSensitive, after_sensitive: afterSensitive },
      },
    ],
  };
}

const attributes = (p: unknown) => reviewPlan('infra', 'p.json', p).changes[0]!.attributes.map((a) => `${a.path}: ${a.before} -> ${a.after}`);

test('an unchanged sensitive value beside a changed one is not listed; the changed sibling is', () => {
  const p = plan({ token: 'canary-1', labels: { a: 'x' } }, { token: 'canary-1', labels: { a: 'y' } }, { token: true }, { token: true });
  expect(attributes(p)).toEqual(['labels.a: "x" -> "y"']);
});

test('an unchanged sensitive map inside a block is not listed', () => {
  const marks = { spec: [{ env: { KEY: true } }] };
  const p = plan({ spec: [{ env: { KEY: 'canary-2' }, replicas: 1 }] }, { spec: [{ env: { KEY: 'canary-2' }, replicas: 2 }] }, marks, marks);
  expect(attributes(p)).toEqual(['spec[0].replicas: 1 -> 2']);
});

test('an unchanged value marked sensitive on one side only is not reported as changed (nor printed)', () => {
  // Terraform marks a value by where it comes from: a variable newly declared `sensitive = true` marks the after side only.
  const newly = plan({ token: 'canary-3', size: 1 }, { token: 'canary-3', size: 2 }, {}, { token: true });
  expect(attributes(newly)).toEqual(['size: 1 -> 2']);
  const dropped = plan({ token: 'canary-4', size: 1 }, { token: 'canary-4', size: 2 }, { token: true }, {});
  expect(attributes(dropped)).toEqual(['size: 1 -> 2']);
});

test('a sensitive value that did change is reported as changed, without its values', () => {
  const p = plan({ token: 'canary-5' }, { token: 'canary-6' }, { token: true }, {});
  const lines = attributes(p);
  expect(lines).toEqual([`token: "${REDACTED}" -> "${SENSITIVE_CHANGED}"`]);
  expect(lines.join('\n')).not.toContain('canary');
});
