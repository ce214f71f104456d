import { finding, Rule } from './types';

export const tpuSliceUnknown: Rule = {
  id: 'tpu-slice-unknown',
  summary: "a TPU pool's machine type and topology are not a slice of the TPU table (jobs/tpu.ts)",
  check: ({ models }) =>
    models
      .flatMap((m) => m.tpuPools)
      .filter((p) => !p.slice)
      .map((p) =>
        finding('tpu-slice-unknown', 'error', p, `TPU pool ${p.name}: ${p.sliceError ?? 'no topology'}`,
          'use a machine type and topology from the TPU table (jobs/tpu.ts); set placement_policy.tpu_topology'),
      ),
};
