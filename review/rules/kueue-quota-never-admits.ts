import { infraView } from './infra-view';
import { finding, Rule } from './types';

export const kueueQuotaNeverAdmits: Rule = {
  id: 'kueue-quota-never-admits',
  summary: 'a JobSet requests more TPU chips than the Kueue ClusterQueue quota (never admitted)',
  check: ({ models }) => {
    const { quotas } = infraView(models);
    return models.flatMap((m) => m.jobsets).flatMap((j) =>
      quotas
        .filter((q) => j.tpuChips > q.tpuChips)
        .map((q) =>
          finding('kueue-quota-never-admits', 'error', j,
            `JobSet ${j.name} requests ${j.tpuChips} TPU chips but the Kueue ClusterQueue quota (${q.address}) is ${q.tpuChips}: it is never admitted`,
            'raise the quota to the chips of all slices (it is derived from the TPU pool groups) or shrink the step'),
        ),
    );
  },
};
