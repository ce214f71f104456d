import { destroys, liveChanges, verb, why } from './plan-facts';
import { finding, Rule } from './types';

export const planDeletesBucket: Rule = {
  id: 'plan-deletes-bucket',
  summary: 'a plan replaces or deletes the bucket',
  check: ({ plans }) =>
    liveChanges(plans)
      .filter(({ c }) => c.type === 'google_storage_bucket' && destroys(c))
      .map(({ plan, c }) =>
        finding('plan-deletes-bucket', 'error', { stack: plan.stack, address: c.address },
          `the bucket is ${verb(c)}${why(c)}: checkpoints and converted models in it are lost`,
          'keep the bucket; a rename needs a new bucket and a copy, not a replace'),
      ),
};
