import { oneLine } from '../plan';
import { isObj, KNOWN_AFTER_APPLY } from '../values';
import { liveChanges } from './plan-facts';
import { finding, Rule } from './types';

/**
 * A step the review cannot see: a `kubernetes_manifest` whose manifest is known only after apply, or a Workflow
 * template that creates a resource the review cannot read as JSON (YAML, a value unknown until apply) or that is not
 * a JobSet (a Pod or Job started directly: no Kueue queue, no slice check). Every TPU, cost and safety rule reads the
 * JobSets, so what it cannot parse fails closed instead of passing as "no TPU".
 */
export const tpuStepUnseen: Rule = {
  id: 'tpu-step-unseen',
  summary: 'a step or manifest the review cannot read (YAML, unknown until apply, not a JobSet) fails closed',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      if (c.type !== 'kubernetes_manifest' || c.action === 'delete' || c.action === 'forget' || !isObj(c.after)) return [];
      const where = { stack: plan.stack, address: c.address };
      const m = c.after.manifest;
      if (m === KNOWN_AFTER_APPLY || (isObj(m) && (m.kind === KNOWN_AFTER_APPLY || m.spec === KNOWN_AFTER_APPLY))) {
        return [finding('tpu-step-unseen', 'error', where, 'its manifest is known only after apply: the review cannot tell what it runs (a JobSet on a TPU slice, a privileged pod)', 'make the manifest a value known at plan time (no reference to a resource created in the same apply)')];
      }
      if (!isObj(m) || m.kind !== 'Workflow' || !isObj(m.spec)) return [];
      const templates = Array.isArray(m.spec.templates) ? m.spec.templates.filter(isObj) : [];
      if (m.spec.templates === KNOWN_AFTER_APPLY) return [finding('tpu-step-unseen', 'error', where, "the Workflow's templates are known only after apply: its steps cannot be reviewed", 'make the templates known at plan time')];
      return templates.flatMap((t) => {
        const r = isObj(t.resource) ? t.resource : undefined;
        if (!r || (r.action !== 'create' && r.action !== 'apply')) return [];
        const name = oneLine(String(t.name ?? '?'), 60);
        const text = r.manifest;
        if (typeof text !== 'string' || text === KNOWN_AFTER_APPLY) {
          return [finding('tpu-step-unseen', 'error', where, `step template ${name} creates a resource whose manifest is known only after apply: the review cannot see what it runs`, 'write the manifest as JSON known at plan time (jobs/argo.ts)')];
        }
        let inner: unknown;
        try {
          inner = JSON.parse(text.replace(/\$\$\{/g, '${').replace(/%%\{/g, '%{'));
        } catch {
          return [finding('tpu-step-unseen', 'error', where, `step template ${name} creates a resource written as YAML or other non-JSON text: the review reads JSON manifests only, so its TPU slice, queue and images are unseen`, 'write the manifest as JSON (jobs/argo.ts does); the review fails closed on anything else')];
        }
        const kind = isObj(inner) ? inner.kind : undefined;
        if (kind === 'JobSet') return [];
        return [finding('tpu-step-unseen', 'error', where, `step template ${name} creates a ${oneLine(String(kind ?? 'resource without a kind'), 40)}, not a JobSet: no Kueue queue, no slice or cost check applies to it`, 'run every step as a JobSet with the pipeline\'s queue (jobs/argo.ts)')];
      });
    }),
};
