import { finding, Rule } from './types';

/**
 * The plan's condition checks (`check` blocks such as infra's reservation check, pre/postconditions), as Terraform
 * v1.11.4 writes them in the plan's `checks` (internal/command/jsonchecks/checks.go, status.go): `fail` (an assertion
 * is false: its error_message) and `error` (the condition could not be evaluated) are errors; `unknown` (decided only
 * during apply, it reads a value known after apply) is a warning. A `check` block's failure does not stop Terraform
 * (it is a warning there), so the review is where it is seen.
 */
export const planChecks: Rule = {
  id: 'plan-checks',
  summary: "a plan's condition check fails, errors, or is unknown until apply",
  check: ({ plans }) =>
    plans.flatMap((p) =>
      p.checks.map((c) => {
        const where = { stack: p.stack, address: c.address };
        const said = c.problems.length ? `: ${c.problems.join('; ')}` : '';
        if (c.status === 'unknown') {
          return finding('plan-checks', 'warning', where,
            `check ${c.address} is unknown until apply (it reads a value Terraform knows only after applying)${said}`,
            `read its result in the apply output, or \`terraform plan\` again in ${p.workingDir} after the values exist`);
        }
        return finding('plan-checks', 'error', where,
          `check ${c.address} ${c.status === 'fail' ? 'fails' : 'could not be evaluated (error)'}${said || ' (no message)'}`,
          `fix what the check reports before applying (\`terraform plan\` in ${p.workingDir} shows it)`);
      }),
    ),
};
