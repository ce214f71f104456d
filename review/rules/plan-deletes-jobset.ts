import { jobSetOf, liveChanges, why } from './plan-facts';
import { finding, Rule } from './types';

export const planDeletesJobset: Rule = {
  id: 'plan-deletes-jobset',
  summary: 'a plan deletes a JobSet',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      const j = c.action === 'delete' ? jobSetOf(c, 'before') : undefined;
      return j
        ? [finding('plan-deletes-jobset', 'warning', { stack: plan.stack, address: c.address }, `JobSet ${j.name} (${j.kind}) is deleted${why(c)}`,
            'its outputs in GCS stay; the finished object leaves the cluster')]
        : [];
    }),
};
