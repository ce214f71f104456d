/** `google_monitoring_alert_policy`: what notifies (a log match or a metric absence) and how many channels. */
import { block, list, str } from '../values';
import type { ResourceDescriber } from './types';

export interface AlertPolicy {
  readonly stack: string;
  readonly address: string;
  readonly displayName: string;
  /** `log match` (condition_matched_log), `absence` (condition_absent), `PromQL` (condition_prometheus_query_language), or `metric` (anything else). */
  readonly condition: 'log match' | 'absence' | 'PromQL' | 'metric';
  /** How many notification channels it notifies (references, as synthesized). */
  readonly channels: number;
}

export const monitoringAlertPolicy: ResourceDescriber = {
  types: ['google_monitoring_alert_policy'],
  extract: (r, { stack }) => {
    const cond = block(r.attrs.conditions) ?? {};
    const condition = cond.condition_matched_log ? 'log match' : cond.condition_absent ? 'absence' : cond.condition_prometheus_query_language ? 'PromQL' : 'metric';
    return {
      alertPolicies: [
        { stack, address: r.address, displayName: str(r.attrs.display_name) ?? r.name, condition, channels: list(r.attrs.notification_channels).length },
      ],
    };
  },
  describe: ({ a, b, verb }) => {
    const p = a?.alertPolicies[0] ?? b?.alertPolicies[0];
    return p && verb ? [`alert policy "${p.displayName}" (${p.condition}, ${p.channels} channel(s)) ${verb}`] : undefined;
  },
};
