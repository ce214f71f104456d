import { stackCost } from '../cost';
import { money } from '../../jobs/prices';
import { finding, Rule } from './types';

export const stackHourlyOverThreshold: Rule = {
  id: 'stack-hourly-over-threshold',
  summary: "a stack's hourly price with all its capacity running passes the threshold (--max-hourly, or thresholds.stackHourly)",
  check: ({ models, prices }) =>
    models.flatMap((m) => {
      const cost = stackCost(m, prices);
      const limit = prices.thresholds.stackHourly;
      if (cost.runningHourly <= limit) return [];
      return [
        finding('stack-hourly-over-threshold', 'warning', { stack: m.name, address: '(stack)' },
          `${m.name} costs ~${money(prices, cost.runningHourly)}/h with all its capacity running (idle ~${money(prices, cost.idleHourly)}/h), ` +
            `above the threshold of ${money(prices, limit)}/h`,
          'confirm the capacity is intended, or raise the threshold (--max-hourly / thresholds.stackHourly)'),
      ];
    }),
};
