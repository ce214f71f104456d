/** `google_logging_metric`: a log-based metric (the training step lines the stall alert watches). */
import { str } from '../values';
import type { ResourceDescriber } from './types';

export const loggingMetric: ResourceDescriber = {
  types: ['google_logging_metric'],
  extract: () => ({}),
  describe: ({ before, after, verb, name }) => {
    const attrs = (after ?? before) as Record<string, unknown> | undefined;
    const metric = str(attrs?.name) ?? name;
    return verb ? [`log-based metric ${metric.includes('${') ? name : metric} ${verb}`] : undefined;
  },
};
