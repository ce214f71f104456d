import { finding, Rule } from './types';

export const tpuNodeCountUnset: Rule = {
  id: 'tpu-node-count-unset',
  summary: 'a fixed-size TPU pool does not set node_count',
  check: ({ models }) =>
    models
      .flatMap((m) => m.tpuPools)
      .filter((p) => p.slice && p.nodeCount === undefined && !p.autoscaling)
      .map((p) => finding('tpu-node-count-unset', 'warning', p, `TPU pool ${p.name}: node_count is not set`, `set node_count = ${p.slice!.vms}`)),
};
