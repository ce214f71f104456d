import { finding, Rule } from './types';

/**
 * The deploy's new plan must do what the reviewed plan did (`--reviewed <stack>=<file>`, review/same-plan.ts): any
 * difference (another merge landed first, the infrastructure drifted, the reviewed plan is of another commit) refuses
 * the apply, as Atlantis and Terraform Cloud apply only the plan that was reviewed.
 */
export const planNotReviewed: Rule = {
  id: 'plan-not-reviewed',
  summary: 'the plan to apply differs from the plan the pull request reviewed',
  check: ({ reviewed = [] }) =>
    reviewed.flatMap((r) =>
      r.differences.length === 0
        ? []
        : [finding('plan-not-reviewed', 'error', { stack: r.stack, address: '(plan)' },
          `the plan of stack ${r.stack} differs from the reviewed plan ${r.file}: ${r.differences.slice(0, 10).join('; ')}${r.differences.length > 10 ? `; ${r.differences.length - 10} more` : ''}`,
          'nothing is applied: re-run the plan review of a pull request on the current main (or open one) and merge after it is reviewed')],
    ),
};
