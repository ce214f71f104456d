import { jobSetOf, liveChanges } from './plan-facts';
import { finding, Rule } from './types';

export const planStartsTraining: Rule = {
  id: 'plan-starts-training',
  summary: 'a plan creates a JobSet that holds TPU chips',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      const j = c.action === 'create' ? jobSetOf(c, 'after') : undefined;
      return j && j.tpuChips > 0
        ? [finding('plan-starts-training', 'note', { stack: plan.stack, address: c.address },
            `JobSet ${j.name} will be created: it holds ${j.tpuChips} TPU chips for up to ${j.timeoutText ?? 'the provider default timeout'}`,
            'expected when a pipeline is (re)run on purpose')]
        : [];
    }),
};
