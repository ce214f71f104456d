import { infraView } from './infra-view';
import { finding, Rule } from './types';

export const kueueQuotaBelowPools: Rule = {
  id: 'kueue-quota-below-pools',
  summary: 'the Kueue TPU quota is below the chips of the TPU pools',
  check: ({ models }) => {
    const infra = infraView(models);
    if (infra.pools.length === 0) return [];
    return infra.quotas
      .filter((q) => q.tpuChips < infra.chips)
      .map((q) =>
        finding('kueue-quota-below-pools', 'warning', q,
          `Kueue TPU quota ${q.tpuChips} is below the ${infra.chips} chips of the TPU pools: some slices can never be used through the queue`,
          `set the google.com/tpu nominalQuota to ${infra.chips}`),
      );
  },
};
