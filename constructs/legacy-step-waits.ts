/**
 * Moving a pipeline deployed with the per-step waits of earlier versions (each step a `kubernetes_manifest` JobSet, a
 * `terraform_data` local-exec wait, a `terraform_data` spec hash and a completion data source) to the Workflow, without
 * re-running a finished step: one Terraform `removed` block per old resource with `lifecycle { destroy = false }`
 * (Terraform >= 1.7), so the next apply forgets them from state and deletes nothing in the cluster. The Workflow's
 * create task then finds each existing JobSet (AlreadyExists, nothing created) and its wait task reads the JobSet's
 * end: a finished step passes at once, a training one is watched to its end, a missing one is created
 * (jobs/argo.ts). A `removed` block for an address that is not in state plans nothing, so new deployments carry the
 * blocks harmlessly (tested with Terraform 1.11.4 in __tests__/stacks/legacy-migration.test.ts).
 *
 * The old addresses are fixed: cdktf derives a logical id from the construct path below the stack only
 * (`<step>/JobSet` -> `<step>_JobSet_<hash>`, cdktf lib/private/unique.js makeUniqueId), the same in every stack.
 */
import { Construct } from 'constructs';
import { TerraformStack } from 'cdktf';

/** Resource type and construct id of the old per-step resources (constructs/jobset-step.ts before the Workflow). */
export const LEGACY_STEP_PARTS: ReadonlyArray<{ readonly type: string; readonly id: string }> = [
  { type: 'kubernetes_manifest', id: 'JobSet' },
  { type: 'terraform_data', id: 'Wait' },
  { type: 'terraform_data', id: 'SpecHash' },
];

/** The logical ids cdktf gave them (makeUniqueId([step, id])), per step and part. */
export const LEGACY_LOGICAL_IDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'to-maxtext': { JobSet: 'to-maxtext_JobSet_201E1B90', Wait: 'to-maxtext_Wait_8E813E8D', SpecHash: 'to-maxtext_SpecHash_AEFCE4B9' },
  train: { JobSet: 'train_JobSet_8972A05E', Wait: 'train_Wait_B1389874', SpecHash: 'train_SpecHash_7EDDA128' },
  'to-hf': { JobSet: 'to-hf_JobSet_07CFECBC', Wait: 'to-hf_Wait_B48C03C6', SpecHash: 'to-hf_SpecHash_E8F040E3' },
  eval: { JobSet: 'eval_JobSet_31958649', Wait: 'eval_Wait_FDCD3F80', SpecHash: 'eval_SpecHash_18475906' },
};

/** The `removed` blocks for these steps' old resources. */
export function legacyRemovedBlocks(steps: readonly string[]): Array<Record<string, unknown>> {
  return steps.flatMap((step) => {
    const ids = LEGACY_LOGICAL_IDS[step];
    if (!ids) return [];
    return LEGACY_STEP_PARTS.map((p) => ({ from: `${p.type}.${ids[p.id]}`, lifecycle: [{ destroy: false }] }));
  });
}

export interface LegacyStepWaitsProps {
  /** The pipeline's step names. */
  readonly steps: readonly string[];
}

export class LegacyStepWaits extends Construct {
  constructor(scope: Construct, id: string, props: LegacyStepWaitsProps) {
    super(scope, id);
    TerraformStack.of(this).addOverride('removed', legacyRemovedBlocks(props.steps));
  }
}
