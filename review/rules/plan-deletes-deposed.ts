import { finding, Rule } from './types';

export const planDeletesDeposed: Rule = {
  id: 'plan-deletes-deposed',
  summary: 'a plan deletes a deposed object (the old half of a create-before-destroy replacement that did not finish)',
  check: ({ plans }) =>
    plans.flatMap((p) =>
      p.changes
        .filter((c) => c.deposed)
        .map((c) =>
          finding('plan-deletes-deposed', 'note', { stack: p.stack, address: c.address },
            `the deposed object ${c.deposed} of ${c.address} is deleted: it is the old object a create-before-destroy replacement left behind, not the current one`,
            'expected clean-up after an interrupted replacement; the current object is untouched'),
        ),
    ),
};
