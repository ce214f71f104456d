import { finding, Rule } from './types';

/**
 * Against `--base`, a pipeline stack whose steps hold TPU chips is gone from the synthesis. cdktf plans and destroys
 * only the stacks the app synthesizes: a removed stack is neither destroyed nor planned again, so whatever it deployed
 * (the training JobSets, running or queued) stays on the cluster, holding its slice, with nothing left in the
 * repository to remove it. The review cannot see the cluster: whether the training runs now is for `npm run status`.
 */
export const baseRemovesPipeline: Rule = {
  id: 'base-removes-pipeline',
  summary: 'against --base, a pipeline stack with TPU training is removed from the synthesis without being destroyed',
  check: ({ diffs }) =>
    (diffs ?? [])
      .filter((s) => s.status === 'removed' && s.removedTraining?.length)
      .map((s) =>
        finding('base-removes-pipeline', 'error', { stack: s.stack, address: s.removedTraining![0]!.address },
          `stack ${s.stack} is removed from the synthesis, but removing a stack destroys nothing: its training (${s.removedTraining!.map((t) => `${t.step}, ${t.chips} TPU chips`).join('; ')}) keeps running or waiting on the cluster, holding the slice, and no later plan or deploy sees it`,
          `first destroy it from the base commit (npm run status -- ${s.stack} shows whether it runs; git switch --detach <base> && npx cdktf destroy ${s.stack}), then merge; or keep the stack`),
      ),
};
