import { oneLine } from '../plan';
import { finding, Rule } from './types';

/** Terraform v1.11.4's deferral reasons (internal/command/jsonplan/plan.go l.50-55), in words. */
const DEFERRED: Readonly<Record<string, string>> = {
  unknown: 'for a reason Terraform did not name',
  instance_count_unknown: 'its count or for_each is known only after apply',
  resource_config_unknown: 'its configuration is known only after apply',
  provider_config_unknown: "its provider's configuration is known only after apply",
  deferred_prereq: 'something it depends on was deferred',
  absent_prereq: 'something it depends on does not exist yet',
};

/**
 * A plan that is not the whole change: `complete: false` (applying it leaves changes for a later plan: deferred
 * actions, `-target`), `deferred_changes`, or `applyable: false` while it lists changes (hashicorp/terraform v1.11.4
 * internal/command/jsonplan/plan.go l.69, 76-78, 245-247, 294-295). What is deferred is applied by a plan nobody reviewed.
 */
export const planIncomplete: Rule = {
  id: 'plan-incomplete',
  summary: 'a plan is incomplete (complete: false), defers changes, or is not applyable while it lists changes',
  check: ({ plans }) =>
    plans.flatMap((p) => {
      const where = { stack: p.stack, address: '(plan)' };
      const out = (p.deferred ?? []).map((d) => finding('plan-incomplete', 'error', { stack: p.stack, address: oneLine(d.address, 120) },
        `${oneLine(d.address, 120)} is deferred: ${DEFERRED[d.reason] ?? `reason ${oneLine(d.reason, 40)}`}; a later plan, not this one, decides what it does`,
        'plan again once what it depends on exists (deploy the dependency first), and review that plan'));
      if (p.complete === false) {
        out.push(finding('plan-incomplete', 'error', where, `the plan of ${p.stack} is incomplete (complete: false): applying it leaves changes for a plan nobody reviewed (deferred actions or -target)`, 'plan the whole stack, without -target, once its dependencies exist'));
      }
      const changes = p.changes.length > 0;
      if (p.applyable === false && changes && !p.errored) {
        out.push(finding('plan-incomplete', 'error', where, `Terraform marked the plan of ${p.stack} not applyable (applyable: false) although it lists changes: it is not a plan Terraform would apply`, 'regenerate it with `terraform plan -out` and `terraform show -json`'));
      }
      return out;
    }),
};
