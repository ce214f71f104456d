import { finding, Rule } from './types';

export const planWrongStack: Rule = {
  id: 'plan-wrong-stack',
  summary: 'a plan given as --plan <stack>=<file> manages resources that stack does not synthesize',
  check: ({ plans }) => [
    ...plans
      .filter((p) => p.foreign.length > 0)
      .map((p) =>
        finding('plan-wrong-stack', 'error', { stack: p.stack, address: '(plan)' },
          `${p.file} plans ${p.foreign.length} resource(s) that stack ${p.stack} does not synthesize ` +
            `(${p.foreign.slice(0, 3).join(', ')}${p.foreign.length > 3 ? ', ...' : ''})` +
            (p.likelyStack ? `: it looks like the plan of ${p.likelyStack}` : ''),
          p.likelyStack ? `pass it as --plan ${p.likelyStack}=${p.file}` : `plan stack ${p.stack} from this commit's synthesis (cdktf diff ${p.stack}) and pass that file`),
      ),
    // The same addresses, another pipeline's names: the plan of one pipeline stack given as another's.
    ...plans
      .filter((p) => p.foreign.length === 0 && p.namesOf !== undefined)
      .map((p) =>
        finding('plan-wrong-stack', 'error', { stack: p.stack, address: '(plan)' },
          `${p.file} plans objects named as stack ${p.namesOf} names them, not as ${p.stack} does: it is the plan of ${p.namesOf}, so ${p.stack} is not reviewed`,
          `pass it as --plan ${p.namesOf}=${p.file}, and plan stack ${p.stack} (cdktf diff ${p.stack}) for --plan ${p.stack}=<file>`)),
  ],
};
