import { finding, Rule } from './types';

/**
 * The CI plan job's own account (.github/scripts/plan-stacks.sh, review-pr.sh): every review reviewed a plan. A job that
 * died outside any stack's plan (`--plan-job-failed <step>`: STATE_BUCKET unset, synth, the artifact) reviewed nothing,
 * and a stack the job set out to plan (`--expect-plan`, its stacks.txt) with neither a plan nor a failure marker was
 * never reviewed: both are errors, so a dead plan job is never a green "no errors".
 */
export const planJob: Rule = {
  id: 'plan-job',
  summary: 'the CI plan job failed outside a stack, or a stack it planned has no plan',
  check: ({ plans, failedPlans = [], planJobFailed = [], expectedPlans = [] }) => [
    ...planJobFailed.map((step) =>
      finding('plan-job', 'error', { stack: '(all)', address: '(plan job)' },
        `the plan job failed at ${step} before, between or after the stacks' plans: no plan it did not save was reviewed, so this review does not cover what a deploy would do`,
        'read the plan job\'s log, fix the cause and re-run the workflow')),
    ...expectedPlans
      .filter((stack) => !plans.some((p) => p.stack === stack) && !failedPlans.includes(stack))
      .map((stack) =>
        finding('plan-job', 'error', { stack, address: '(plan)' },
          `the plan job planned stack ${stack} but neither its plan nor a failure marker reached the review: it is not reviewed`,
          'read the plan job\'s log and re-run the workflow')),
  ],
};
