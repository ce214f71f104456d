import { finding, Rule } from './types';

export const tpuOnDemand: Rule = {
  id: 'tpu-on-demand',
  summary: 'a TPU pool has neither a reservation, spot nor flex-start',
  check: ({ models }) =>
    models
      .flatMap((m) => m.tpuPools)
      .filter((p) => p.slice && p.capacity === 'on-demand')
      .map((p) =>
        finding('tpu-on-demand', 'warning', p,
          `TPU pool ${p.name} has neither a reservation, spot nor flex-start: on-demand ${p.slice!.acceleratorType} capacity is rarely available and the pool may never come up`,
          'set a reservation (RESERVATION), or spot / flex-start'),
      ),
};
