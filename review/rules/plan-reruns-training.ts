import { jobSetOf, liveChanges, runningNow, why } from './plan-facts';
import { finding, Rule } from './types';

const running = (c: Parameters<typeof runningNow>[0]) => (runningNow(c) ? `. ${runningNow(c)}` : '');

export const planRerunsTraining: Rule = {
  id: 'plan-reruns-training',
  summary: 'a plan replaces a training (or TPU) JobSet: training runs again from the start',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      if (c.action !== 'replace' || c.reason === 'replace_because_tainted') return [];
      const j = jobSetOf(c, 'before') ?? jobSetOf(c, 'after');
      if (!j || !(j.tpuChips > 0 || j.kind === 'training')) return [];
      return [
        finding('plan-reruns-training', 'error', { stack: plan.stack, address: c.address },
          `training JobSet ${j.name} is replaced${why(c)}: training runs again from the start on ${j.tpuChips} chips${running(c)}`,
          'change the run id in the config only when a re-run is intended; otherwise revert the change to the JobSet'),
      ];
    }),
};
