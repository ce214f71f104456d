import { finding, Rule } from './types';

export const clusterDefaultPoolSa: Rule = {
  id: 'cluster-default-pool-sa',
  summary: "the cluster keeps its default node pool on the Compute Engine default service account",
  check: ({ models }) =>
    models
      .flatMap((m) => m.controlPlanes)
      .filter((cp) => !cp.removeDefaultNodePool && cp.defaultPoolServiceAccount === undefined)
      .map((cp) =>
        finding('cluster-default-pool-sa', 'error', cp,
          `cluster ${cp.name}: the default node pool runs as the Compute Engine default service account (project Editor)`,
          'set remove_default_node_pool = true (manage pools separately) or node_config.service_account to a dedicated GSA'),
      ),
};
