import { destroys, liveChanges, tpuPoolOf, verb, why } from './plan-facts';
import { finding, Rule } from './types';

export const planReplacesPool: Rule = {
  id: 'plan-replaces-pool',
  summary: 'a plan replaces or deletes a CPU node pool',
  check: ({ plans }) =>
    liveChanges(plans)
      .filter(({ c }) => c.type === 'google_container_node_pool' && destroys(c) && !tpuPoolOf(c, 'before') && !tpuPoolOf(c, 'after'))
      .map(({ plan, c }) =>
        finding('plan-replaces-pool', 'warning', { stack: plan.stack, address: c.address },
          `node pool ${c.address} is ${verb(c)}${why(c)}: pods on it are evicted`, 'check nothing is running on it (Pathways heads, conversions)'),
      ),
};
