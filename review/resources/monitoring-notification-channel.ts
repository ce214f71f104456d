/** `google_monitoring_notification_channel`: who is notified (NOTIFY_EMAIL, constructs/notifications.ts). */
import { block, resolveRefs, str } from '../values';
import type { ResourceDescriber } from './types';

export interface NotificationChannel {
  readonly stack: string;
  readonly address: string;
  /** `email`, `slack`, ... */
  readonly type: string;
  /** The address notified (the email label), or the channel's display name. */
  readonly target: string;
}

export const monitoringNotificationChannel: ResourceDescriber = {
  types: ['google_monitoring_notification_channel'],
  extract: (r, { stack, json }) => {
    const labels = block(r.attrs.labels) ?? {};
    const target = str(labels.email_address) ?? str(r.attrs.display_name) ?? r.name;
    return { notificationChannels: [{ stack, address: r.address, type: str(r.attrs.type) ?? '?', target: resolveRefs(target, json) }] };
  },
  describe: ({ a, b, verb }) => {
    const c = a?.notificationChannels[0] ?? b?.notificationChannels[0];
    return c && verb ? [`notification channel ${c.type} ${c.target} ${verb}`] : undefined;
  },
};
