import { leadingPath, SLICE_IN_PLACE_BREAKS } from '../resources/container-node-pool';
import { KNOWN_AFTER_APPLY } from '../plan';
import { liveChanges, tpuPoolOf } from './plan-facts';
import { finding, Rule } from './types';

export const planUpdatesTpuSlice: Rule = {
  id: 'plan-updates-tpu-slice',
  summary: 'a plan updates a multi-host TPU pool in place (other attributes): GKE may recreate every VM of the slice',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      if (c.action !== 'update') return [];
      const pool = tpuPoolOf(c, 'after') ?? tpuPoolOf(c, 'before');
      if (!pool?.slice?.multiHost) return [];
      const paths = [...new Set(c.attributes.filter((a) => a.after !== JSON.stringify(KNOWN_AFTER_APPLY)).map((a) => leadingPath(a.path)))].filter((p) => !SLICE_IN_PLACE_BREAKS[p]);
      if (paths.length === 0) return [];
      return [
        finding('plan-updates-tpu-slice', 'warning', { stack: plan.stack, address: c.address },
          `TPU pool ${pool.name} (${pool.slice.chips} chips, ${pool.slice.vms} hosts) is updated in place (${paths.join(', ')}): ` +
            'GKE applies node changes to all VMs of a multi-host slice at once, evicting every pod on it',
          'apply when no training runs on the slice (check `kubectl get jobsets`)'),
      ];
    }),
};
