import { finding, Rule } from './types';

export const planErrored: Rule = {
  id: 'plan-errored',
  summary: 'a plan is marked errored: Terraform stopped planning part way and the actions are incomplete',
  check: ({ plans }) =>
    plans
      .filter((p) => p.errored)
      .map((p) =>
        finding('plan-errored', 'error', { stack: p.stack, address: '(plan)' },
          `the plan in ${p.file} is errored (errored: true): Terraform stopped planning part way, so the actions listed are incomplete`,
          `read the errors of \`cdktf diff ${p.stack}\` (or \`terraform plan\` in ${p.workingDir}), fix them and plan again`),
      ),
};
