import { PUBLIC_OPT_IN_NAME } from '../../jobs/platform';
import { finding, Rule } from './types';

const OPEN_CIDRS = new Set(['0.0.0.0/0', '::/0']);

export const controlPlaneOpen: Rule = {
  id: 'control-plane-open',
  summary: 'the control-plane allow-list contains 0.0.0.0/0 or ::/0 (a warning when opted in with ALLOW_PUBLIC_CONTROL_PLANE)',
  check: ({ models }) =>
    models.flatMap((m) => m.controlPlanes).flatMap((cp) =>
      (cp.authorizedNetworks ?? [])
        .filter((n) => OPEN_CIDRS.has(n.cidr))
        .map((n) => {
          // An entry named PUBLIC_OPT_IN_NAME was opted into explicitly (as the tutorials do): still reported, as a warning.
          const optedIn = n.displayName === PUBLIC_OPT_IN_NAME;
          return finding('control-plane-open', optedIn ? 'warning' : 'error', cp,
            `cluster ${cp.name}: the control-plane allow-list contains ${n.cidr}${n.displayName ? ` (${n.displayName})` : ''}: ` +
              'any address on the internet can reach the Kubernetes API' +
              (optedIn ? ' (explicitly opted in with ALLOW_PUBLIC_CONTROL_PLANE)' : ''),
            'remove it from the authorized networks; give CI runners the DNS-based endpoint (IAM-authorized) instead, ' +
              'or list the office/VPN ranges that need kubectl');
        }),
    ),
};
