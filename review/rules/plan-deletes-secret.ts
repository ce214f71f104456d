import { destroys, liveChanges, verb } from './plan-facts';
import { finding, Rule } from './types';

export const planDeletesSecret: Rule = {
  id: 'plan-deletes-secret',
  summary: 'a plan replaces or deletes the Secret Manager secret (its versions, the HF token, go with it)',
  check: ({ plans }) =>
    liveChanges(plans)
      .filter(({ c }) => c.type === 'google_secret_manager_secret' && destroys(c))
      .map(({ plan, c }) =>
        finding('plan-deletes-secret', 'warning', { stack: plan.stack, address: c.address },
          `secret ${c.address} is ${verb(c)}: its versions (the HF token) are destroyed`, 'keep the secret; recreate the version afterwards if it must go'),
      ),
};
