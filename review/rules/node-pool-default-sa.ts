import { finding, Rule } from './types';

const DEFAULT_COMPUTE_SA = /-compute@developer\.gserviceaccount\.com$/;

export const nodePoolDefaultSa: Rule = {
  id: 'node-pool-default-sa',
  summary: 'a node pool runs as the Compute Engine default service account',
  check: ({ models }) =>
    models
      .flatMap((m) => [...m.tpuPools, ...m.cpuPools])
      .filter((p) => !p.serviceAccount || p.serviceAccount === 'default' || DEFAULT_COMPUTE_SA.test(p.serviceAccount))
      .map((p) =>
        finding('node-pool-default-sa', 'error', p,
          `node pool ${p.name} has no dedicated service account: its nodes run as the Compute Engine default service account (project Editor)`,
          'set node_config.service_account to the node GSA (logging, monitoring, artifact registry reader) with oauth_scopes cloud-platform'),
      ),
};
