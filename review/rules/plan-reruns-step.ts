import { conversionOutcome } from '../resources/kubernetes-manifest';
import { jobSetOf, liveChanges, runningNow, why } from './plan-facts';
import { finding, Rule } from './types';

export const planRerunsStep: Rule = {
  id: 'plan-reruns-step',
  summary: 'a plan replaces a CPU JobSet step (conversion or export); for a conversion it says whether the checkpoint is reused',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      if (c.action !== 'replace' || c.reason === 'replace_because_tainted') return [];
      const before = jobSetOf(c, 'before');
      const after = jobSetOf(c, 'after');
      const j = after ?? before;
      if (!j || j.tpuChips > 0 || j.kind === 'training') return [];
      const outcome = after ? conversionOutcome(before, after) : undefined;
      return [
        finding('plan-reruns-step', 'warning', { stack: plan.stack, address: c.address },
          `JobSet ${j.name} (${j.kind}) is replaced${why(c)}${outcome ? `: ${outcome}` : ''}${runningNow(c) ? `. ${runningNow(c).replace('a training run', 'a run')}` : ''}`, 'expected only when the step should run again'),
      ];
    }),
};
