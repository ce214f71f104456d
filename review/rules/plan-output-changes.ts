import { oneLine } from '../plan';
import { finding, Rule } from './types';

/**
 * The stack's outputs change (`output_changes`): outputs are stored in state in clear text and printed by every
 * apply in CI, and other tools read them (status, a serve stack). A new or changed output is shown, its value cut
 * (a sensitive one not at all).
 */
export const planOutputChanges: Rule = {
  id: 'plan-output-changes',
  summary: "a stack's outputs change (stored in state and printed by every apply)",
  check: ({ plans }) =>
    plans.flatMap((p) =>
      (p.outputs ?? []).map((o) => {
        const show = (v: unknown) => (v === undefined || v === null ? '(none)' : oneLine(typeof v === 'string' ? v : JSON.stringify(v) ?? '', 80));
        const value = o.sensitive ? ' (sensitive: value not shown)' : `: ${o.action === 'create' ? '' : `${show(o.before)} -> `}${o.afterUnknown ? '(known after apply)' : show(o.after)}`;
        return finding('plan-output-changes', 'warning', { stack: p.stack, address: `output.${oneLine(o.name, 80)}` },
          `output ${oneLine(o.name, 80)} is ${o.action === 'create' ? 'added' : o.action === 'delete' ? 'removed' : 'changed'}${value}: outputs are kept in state in clear text and printed by every apply`,
          'check nothing secret or internal (an address, a token) becomes an output, and that what reads the output still finds it');
      }),
    ),
};
