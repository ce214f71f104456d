import { oneLine } from '../plan';
import { finding, Rule } from './types';

/**
 * Drift (`resource_drift`, hashicorp/terraform v1.11.4 jsonplan/plan.go l.67): an object changed outside Terraform
 * since the last apply. Applying the plan sets it back (or builds on what someone else changed); on IAM and cluster
 * objects that can be an emergency fix being undone or an intrusion being kept.
 */
export const planDrift: Rule = {
  id: 'plan-drift',
  summary: 'an object changed outside Terraform since the last apply (resource_drift)',
  check: ({ plans }) =>
    plans.flatMap((p) =>
      (p.drift ?? []).map((d) => {
        // IAM, RBAC, secrets and firewalls: an error. Node pools and clusters drift by design (GKE auto-upgrades their
        // versions), so there a warning: an error would block every deploy.
        const security = /iam|role|secret|firewall/.test(d.type);
        const paths = d.paths.length ? `: ${d.paths.slice(0, 8).map((x) => oneLine(x, 80)).join(', ')}${d.paths.length > 8 ? `, ${d.paths.length - 8} more` : ''}` : '';
        return finding('plan-drift', security ? 'error' : 'warning', { stack: p.stack, address: d.address },
          `${oneLine(d.address, 120)} was ${d.action === 'delete' ? 'deleted' : 'changed'} outside Terraform since the last apply${paths}; applying this plan ${d.action === 'delete' ? 'creates it again' : 'sets it back to the configuration'}${security ? ' (an IAM, RBAC, secret or firewall object: find out who changed it and why first)' : ''}`,
          'find who changed it (Cloud Audit Logs), then put the change into the code or let this plan revert it on purpose');
      }),
    ),
};
