import { finding, Rule } from './types';

export const tpuNoPlacement: Rule = {
  id: 'tpu-no-placement',
  summary: 'a multi-host TPU pool has no placement_policy.tpu_topology',
  check: ({ models }) =>
    models
      .flatMap((m) => m.tpuPools)
      .filter((p) => p.slice?.multiHost && !p.topology)
      .map((p) =>
        finding('tpu-no-placement', 'error', p, `TPU pool ${p.name}: multi-host slice without placement_policy.tpu_topology`,
          `set placement_policy { type = "COMPACT", tpu_topology = "${p.slice!.topology}" }`),
      ),
};
