import { oneLine } from '../plan';
import { isObj, KNOWN_AFTER_APPLY } from '../values';
import { liveChanges } from './plan-facts';
import { finding, Rule } from './types';

/** The members an IAM resource grants (`member`, `members`). */
export function membersOf(values: unknown): string[] {
  if (!isObj(values)) return [];
  const one = typeof values.member === 'string' ? [values.member] : [];
  const many = Array.isArray(values.members) ? values.members.filter((m): m is string => typeof m === 'string') : [];
  return [...one, ...many].filter((m) => m !== KNOWN_AFTER_APPLY);
}

/** The projects a plan's resources name (`project` attributes): this deployment's. */
export function projectsOf(values: readonly unknown[]): Set<string> {
  const of = (v: unknown): string[] => {
    if (!isObj(v)) return [];
    const direct = typeof v.project === 'string' && v.project !== KNOWN_AFTER_APPLY ? [v.project.replace(/^projects\//, '')] : [];
    // A service account's IAM names its project in the account id (`projects/<id>/serviceAccounts/<email>`).
    const sa = typeof v.service_account_id === 'string' ? /^projects\/([a-z][a-z0-9-]{4,28}[a-z0-9])\//.exec(v.service_account_id)?.[1] : undefined;
    return [...direct, ...(sa ? [sa] : [])];
  };
  return new Set(values.flatMap(of));
}

/** Why a member is wider than one identity of this project, or undefined. */
export function wideMember(member: string, projects: ReadonlySet<string>): string | undefined {
  if (/^(allUsers|allAuthenticatedUsers)$/.test(member) || member === 'principalSet://goog/public:all') return 'public: anyone (with a Google account)';
  if (member.startsWith('domain:')) return 'domain-wide: every account of the domain';
  if (member.startsWith('principalSet://') && /\/\*$/.test(member)) return 'a wildcard: every identity of the pool';
  if (member.startsWith('principalSet://') && /\/attribute\.repository_owner\//.test(member)) return 'every repository of a GitHub owner';
  const sa = /^serviceAccount:[^@]+@([a-z][a-z0-9-]{4,28}[a-z0-9])\.iam\.gserviceaccount\.com$/.exec(member);
  if (sa && projects.size && !projects.has(sa[1]!)) return `another project's service account (${sa[1]})`;
  const wi = /^serviceAccount:([a-z][a-z0-9-]{4,28}[a-z0-9])\.svc\.id\.goog\[/.exec(member);
  if (wi && projects.size && !projects.has(wi[1]!)) return `another project's Kubernetes service account (${wi[1]}'s workload pool)`;
  return undefined;
}

/**
 * An IAM grant (`google_*_iam_member`, `_binding`, `_policy` member lists) of the plan adds a member that is public,
 * domain-wide, a principalSet wildcard or a GitHub owner, or another project's account. The synthesized `public-iam`
 * rule reads the stack; this one reads what the plan applies (values from variables and data sources included).
 */
export const iamPrincipalWide: Rule = {
  id: 'iam-principal-wide',
  summary: 'an IAM grant of the plan adds a public, domain-wide, wildcard or another project\'s principal',
  check: ({ plans }) => {
    const projects = projectsOf(plans.flatMap((p) => p.changes.flatMap((c) => [c.before, c.after])));
    return liveChanges(plans).flatMap(({ plan, c }) => {
      if (!/^google_.*_iam_(member|binding|policy)$/.test(c.type) || c.action === 'delete' || c.action === 'forget') return [];
      const before = new Set(membersOf(c.before));
      const role = isObj(c.after) && typeof c.after.role === 'string' ? oneLine(c.after.role, 80) : '(a role)';
      return membersOf(c.after).filter((m) => !before.has(m)).flatMap((m) => {
        const why = wideMember(m, projects);
        return why ? [finding('iam-principal-wide', 'error', { stack: plan.stack, address: c.address },
          `${role} is granted to ${oneLine(m, 160)}: ${why}`, 'grant the role to this deployment\'s own service account only')] : [];
      });
    });
  },
};
