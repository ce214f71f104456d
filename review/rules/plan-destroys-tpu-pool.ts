import { destroys, liveChanges, tpuPoolOf, verb, why } from './plan-facts';
import { finding, Rule } from './types';

export const planDestroysTpuPool: Rule = {
  id: 'plan-destroys-tpu-pool',
  summary: 'a plan replaces or deletes a TPU node pool (the slice)',
  check: ({ plans }) =>
    liveChanges(plans)
      .filter(({ c }) => destroys(c) && (tpuPoolOf(c, 'before') || tpuPoolOf(c, 'after')))
      .map(({ plan, c }) =>
        finding('plan-destroys-tpu-pool', 'error', { stack: plan.stack, address: c.address },
          `${c.summary[0] ?? `TPU pool ${c.address}`}: the slice is ${verb(c)}${why(c)}; running training is killed and the reservation capacity may not come back`,
          'keep the pool (topology, machine type and reservation changes need a new pool next to the old one), or drain it and accept losing the slice'),
      ),
};
