import { destroys, liveChanges, verb, why } from './plan-facts';
import { finding, Rule } from './types';

export const planDestroysCluster: Rule = {
  id: 'plan-destroys-cluster',
  summary: 'a plan replaces or deletes the GKE cluster',
  check: ({ plans }) =>
    liveChanges(plans)
      .filter(({ c }) => c.type === 'google_container_cluster' && destroys(c))
      .map(({ plan, c }) =>
        finding('plan-destroys-cluster', 'error', { stack: plan.stack, address: c.address },
          `the GKE cluster is ${verb(c)}${why(c)}: every node pool, slice and running workload goes with it`,
          'undo the attribute change that forces replacement, or do it in a planned maintenance window with `deletion_protection` lifted on purpose'),
      ),
};
