import { finding, Rule } from './types';

export const stackChipsOverThreshold: Rule = {
  id: 'stack-chips-over-threshold',
  summary: "a stack's TPU chips pass the threshold (--max-chips, or thresholds.stackChips in the prices file)",
  check: ({ models, prices }) =>
    models.flatMap((m) => {
      const chips = m.tpuPools.reduce((s, p) => s + (p.slice?.chips ?? 0), 0);
      const limit = prices.thresholds.stackChips;
      if (chips <= limit) return [];
      return [
        finding('stack-chips-over-threshold', 'warning', { stack: m.name, address: '(stack)' },
          `${m.name} holds ${chips} TPU chips (${m.tpuPools.map((p) => `${p.name} ${p.slice?.chips ?? '?'}`).join(', ')}), above the threshold of ${limit}`,
          'confirm the capacity is intended, or raise the threshold (--max-chips / thresholds.stackChips)'),
      ];
    }),
};
