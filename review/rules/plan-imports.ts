import { liveChanges, tpuPoolOf } from './plan-facts';
import { finding, Rule } from './types';

/** What an adopted object of these types holds that a later destroy of the stack would take with it. */
const HOLDS: Readonly<Record<string, string>> = {
  google_storage_bucket: 'its checkpoints and converted models',
  google_secret_manager_secret: 'the secret and every version of it',
  google_secret_manager_secret_version: 'that secret version',
};

/**
 * An `import` block adopts an existing bucket, secret or TPU pool (Terraform 1.11.4 plans it as a no-op or an update
 * with `change.importing`): after the merge the deploy takes it into this stack's state, and from then on a teardown
 * of the stack (`cdktf destroy`, a removed resource) deletes it, with what it holds. A warning, not an error: adopting
 * is sometimes the point, and the deploy refuses any error finding.
 */
export const planImports: Rule = {
  id: 'plan-imports',
  summary: 'a plan imports an existing bucket, secret or TPU pool into state',
  check: ({ plans }) =>
    liveChanges(plans)
      .filter(({ c }) => c.importing !== undefined && (HOLDS[c.type] !== undefined || tpuPoolOf(c, 'after') || tpuPoolOf(c, 'before')))
      .map(({ plan, c }) =>
        finding('plan-imports', 'warning', { stack: plan.stack, address: c.address },
          `imports the existing ${HOLDS[c.type] ? c.type.replace(/^google_/, '').replace(/_/g, ' ') : 'TPU node pool (a slice)'} ${c.importing} into stack ${plan.stack}: from the deploy on, destroying the stack or removing the resource deletes ${HOLDS[c.type] ?? 'the slice and any training on it'}`,
          'adopt it only if this stack should own it; otherwise drop the import block (or use a data source); `lifecycle { prevent_destroy = true }` guards it'),
      ),
};
