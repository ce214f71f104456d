import { infraView } from './infra-view';
import { finding, Rule } from './types';

export const pipelinePoolMissing: Rule = {
  id: 'pipeline-pool-missing',
  summary: 'a JobSet selects a node pool (cloud.google.com/gke-nodepool) infra does not have',
  check: ({ models }) => {
    const infra = infraView(models);
    if (!infra.hasInfra) return [];
    return models.flatMap((m) => m.jobsets).flatMap((j) =>
      j.nodePools
        .filter((pool) => !infra.poolNames.has(pool))
        .map((pool) =>
          finding('pipeline-pool-missing', 'error', j, `JobSet ${j.name} selects node pool ${pool}, which infra does not have`,
            `use one of: ${[...infra.poolNames].join(', ')}`),
        ),
    );
  },
};
