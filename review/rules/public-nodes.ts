import { finding, Rule } from './types';

export const publicNodes: Rule = {
  id: 'public-nodes',
  summary: 'cluster nodes get public IPs',
  check: ({ models }) =>
    models
      .flatMap((m) => m.controlPlanes)
      .filter((cp) => !cp.privateNodes)
      .map((cp) =>
        finding('public-nodes', 'warning', cp, `cluster ${cp.name}: nodes get public IPs (private_cluster_config.enable_private_nodes is not true)`,
          'set private_cluster_config.enable_private_nodes = true and give egress through Cloud NAT'),
      ),
};
