import { finding, Rule } from './types';

export const tpuNodeCountMismatch: Rule = {
  id: 'tpu-node-count-mismatch',
  summary: "a TPU pool's node_count is not the VM count of its topology",
  check: ({ models }) =>
    models
      .flatMap((m) => m.tpuPools)
      .filter((p) => p.slice && p.nodeCount !== undefined && p.nodeCount !== p.slice.vms)
      .map((p) => {
        const s = p.slice!;
        return finding('tpu-node-count-mismatch', 'error', p,
          `TPU pool ${p.name}: node_count ${p.nodeCount} disagrees with topology ${s.topology} on ${s.machineType} ` +
            `(${s.chips} chips = ${s.vms} VMs of ${s.chipsPerVm})`,
          `set node_count = ${s.vms}, or change the topology (a new pool)`);
      }),
};
