import { infraView } from './infra-view';
import { finding, Rule } from './types';

export const kueueQuotaOver: Rule = {
  id: 'kueue-quota-over',
  summary: 'the Kueue TPU quota exceeds the chips of the TPU pools',
  check: ({ models }) => {
    const infra = infraView(models);
    if (infra.pools.length === 0) return [];
    return infra.quotas
      .filter((q) => q.tpuChips > infra.chips)
      .map((q) =>
        finding('kueue-quota-over', 'warning', q,
          `Kueue TPU quota ${q.tpuChips} exceeds the ${infra.chips} chips of the TPU pools: Kueue admits work that cannot schedule`,
          `set the google.com/tpu nominalQuota to ${infra.chips}`),
      );
  },
};
