import { leadingPath, SLICE_IN_PLACE_BREAKS } from '../resources/container-node-pool';
import { KNOWN_AFTER_APPLY } from '../plan';
import { liveChanges, tpuPoolOf } from './plan-facts';
import { finding, Rule } from './types';

/**
 * In-place updates GKE cannot apply to a TPU slice (see resources/container-node-pool.ts for what the provider does
 * with each attribute at v6.50.0): a multi-host slice is atomic, and any slice's node count is fixed by its topology.
 */
export const planResizesTpuSlice: Rule = {
  id: 'plan-resizes-tpu-slice',
  summary: 'a plan changes a TPU pool in place in a way a slice cannot take (node_count, autoscaling, zones, machine type, boot disk)',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      if (c.action !== 'update') return [];
      const before = tpuPoolOf(c, 'before');
      const after = tpuPoolOf(c, 'after');
      const slice = before?.slice ?? after?.slice;
      if (!before || !after || !slice) return [];
      const paths = [...new Set(c.attributes.filter((a) => a.after !== JSON.stringify(KNOWN_AFTER_APPLY)).map((a) => leadingPath(a.path)))];
      const breaking = paths.filter((p) => SLICE_IN_PLACE_BREAKS[p] && (slice.multiHost || (p === 'node_count' && after.nodeCount !== slice.vms)));
      if (breaking.length === 0) return [];
      const what = breaking
        .map((p) => (p === 'node_count' ? `node_count ${before.nodeCount ?? '?'} -> ${after.nodeCount ?? '?'}: ${SLICE_IN_PLACE_BREAKS[p]}` : `${p}: ${SLICE_IN_PLACE_BREAKS[p]}`))
        .join('; ');
      return [
        finding('plan-resizes-tpu-slice', 'error', { stack: plan.stack, address: c.address },
          `TPU pool ${after.name} (${slice.topology}, ${slice.chips} chips, ${slice.vms} hosts) is updated in place: ${what}. ` +
            'GKE fails the update or leaves a slice its workloads cannot use',
          `keep node_count = ${slice.vms} and the pool as it is; for another slice shape add a new pool (new topology) and move the pipelines to it`),
      ];
    }),
};
