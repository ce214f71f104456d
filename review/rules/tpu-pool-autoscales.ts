import { finding, Rule } from './types';

export const tpuPoolAutoscales: Rule = {
  id: 'tpu-pool-autoscales',
  summary: 'a TPU pool autoscales other than a flex-start slice scaling 0 -> all its VMs (an error for a multi-host slice)',
  check: ({ models }) =>
    models.flatMap((m) => m.tpuPools).flatMap((p) => {
      const s = p.slice;
      if (!s || !p.autoscaling) return [];
      // Flex-start is the one exception: GKE provisions such a slice by scaling its pool 0 -> all VMs at once.
      if (p.capacity === 'flex-start' && (p.minNodes ?? 0) === 0 && p.maxNodes === s.vms) return [];
      return [
        finding('tpu-pool-autoscales', s.multiHost ? 'error' : 'warning', p,
          `TPU pool ${p.name} (${s.topology}, ${s.chips} chips, ${s.vms} hosts) autoscales` +
            (s.multiHost ? ': a multi-host slice is atomic; scaling it adds or removes whole VMs the slice cannot use' : ''),
          p.capacity === 'flex-start'
            ? `a flex-start slice scales 0 -> ${s.vms} (min_node_count = 0, max_node_count = ${s.vms})`
            : `remove autoscaling and set node_count = ${s.vms}`),
      ];
    }),
};
