import { oneLine } from '../plan';
import { isObj } from '../values';
import { membersOf } from './iam-principal-wide';
import { liveChanges } from './plan-facts';
import { finding, Rule } from './types';

/**
 * Who a Workload Identity member admits (GKE: `serviceAccount:<project>.svc.id.goog[<namespace>/<ksa>]` is one
 * Kubernetes service account; `principalSet://iam.googleapis.com/projects/<n>/locations/global/workloadIdentityPools/
 * <project>.svc.id.goog/namespace/<ns>` is every pod of a namespace, `/kubernetes.cluster/<url>` of a cluster, and
 * `.../<pool>/*` of every cluster of the project).
 */
function breadth(member: string): string | undefined {
  if (!/svc\.id\.goog/.test(member) || !member.startsWith('principalSet://')) return undefined;
  if (/\/\*$/.test(member)) return 'every pod of every cluster in the project';
  if (/\/kubernetes\.cluster\//.test(member)) return 'every pod of a cluster';
  if (/\/namespace\//.test(member)) return 'every pod of a namespace (any service account there, any pod a JobSet or Workflow creates)';
  return 'a set of Kubernetes identities';
}

/**
 * Workload Identity widened: a grant to a principalSet of the GKE workload pool (a namespace, a cluster, the pool), or
 * `roles/iam.workloadIdentityUser` moved to another Kubernetes service account or granted on more than one.
 */
export const workloadIdentityWidened: Rule = {
  id: 'workload-identity-widened',
  summary: 'Workload Identity admits a namespace, a cluster or another Kubernetes service account',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      if (!/^google_.*_iam_(member|binding|policy)$/.test(c.type) || c.action === 'delete' || c.action === 'forget') return [];
      const role = isObj(c.after) && typeof c.after.role === 'string' ? c.after.role : '';
      const before = membersOf(c.before);
      const added = membersOf(c.after).filter((m) => !before.includes(m));
      const wide = added.flatMap((m) => { const b = breadth(m); return b ? [`${oneLine(m, 160)} (${b})`] : []; });
      const ksa = (ms: string[]) => ms.filter((m) => /^serviceAccount:[^@]+\.svc\.id\.goog\[/.test(m));
      const moved = role === 'roles/iam.workloadIdentityUser' && c.action !== 'create' ? ksa(added) : [];
      if (!wide.length && !moved.length) return [];
      return [finding('workload-identity-widened', 'error', { stack: plan.stack, address: c.address },
        `${oneLine(role || '(a role)', 80)} now admits ${[...wide, ...moved.map((m) => `${oneLine(m, 160)} (another Kubernetes service account than before)`)].join(', ')}: each can act as this Google identity`,
        'bind one Kubernetes service account (serviceAccount:<project>.svc.id.goog[<namespace>/<name>]) and keep it the pipeline\'s own')];
    }),
};
