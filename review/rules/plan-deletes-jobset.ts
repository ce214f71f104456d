import { jobSetOf, liveChanges, runningNow, why } from './plan-facts';
import { finding, Rule } from './types';

export const planDeletesJobset: Rule = {
  id: 'plan-deletes-jobset',
  summary: 'a plan deletes a JobSet',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      const j = c.action === 'delete' ? jobSetOf(c, 'before') : undefined;
      if (!j) return [];
      const running = runningNow(c).replace('replacing it', 'deleting it');
      // Deleting a JobSet that is running stops the run: an error; a finished one only leaves the cluster.
      return [finding('plan-deletes-jobset', running ? 'error' : 'warning', { stack: plan.stack, address: c.address },
        `JobSet ${j.name} (${j.kind}) is deleted${why(c)}${running ? `. ${running}` : ''}`,
        running ? 'wait for the run to finish (npm run status), or accept losing the run' : 'its outputs in GCS stay; the finished object leaves the cluster')];
    }),
};
