import { finding, Rule } from './types';

/**
 * With plans (the pull request's plan job ran), every stack whose synthesized configuration changed against `--base`
 * must have a plan, and that plan must change something: a plan that changes nothing for a changed configuration is
 * stale or of another commit, and a missing one hides what the change does. A stack whose plan step failed
 * (`--plan-failed <stack>`, written by .github/scripts/plan-stacks.sh) fails the review too. Without any plan (a fork's
 * pull request, no plan identity) the review is of the synthesized change alone and this rule says nothing.
 */
export const planMissing: Rule = {
  id: 'plan-missing',
  summary: 'a changed stack has no plan, a plan that changes nothing, or a plan step that failed',
  check: ({ plans, diffs, failedPlans = [], failedSteps = {} }) => {
    const failed = failedPlans.map((stack) =>
      finding('plan-missing', 'error', { stack, address: '(plan)' },
        `the plan step for stack ${stack} failed${Object.hasOwn(failedSteps, stack) ? ` at terraform ${failedSteps[stack]}` : ''}: the review cannot say what this change does to it`,
        `read the plan job's log (cdktf diff ${stack}), fix the cause and re-run the job`));
    if (plans.length === 0 && failedPlans.length === 0) return failed;
    // A stack gone from the synthesis has no plan to give (--plan needs a synthesized stack; cdktf plans it no more).
    const changed = (diffs ?? []).filter((d) => d.status === 'changed' || d.status === 'added');
    const missing = changed.flatMap((d) => {
      if (failedPlans.includes(d.stack)) return [];
      const plan = plans.find((p) => p.stack === d.stack);
      if (!plan) {
        return [finding('plan-missing', 'error', { stack: d.stack, address: '(plan)' },
          `the synthesized configuration of stack ${d.stack} changed (${d.status}) but no plan of it was given: what it does to the infrastructure is not reviewed`,
          `plan it (cdktf diff ${d.stack}) and pass the plan with --plan ${d.stack}=<file>`)];
      }
      if (plan.changes.length === 0 && !plan.errored) {
        return [finding('plan-missing', 'error', { stack: d.stack, address: '(plan)' },
          `the synthesized configuration of stack ${d.stack} changed (${d.status}) but its plan ${plan.file} changes nothing: the plan is stale or of another commit`,
          `plan this commit's synthesis again (cdktf diff ${d.stack}) and pass that plan`)];
      }
      return [];
    });
    return [...failed, ...missing];
  },
};
