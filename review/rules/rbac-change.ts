import { oneLine } from '../plan';
import { isObj } from '../values';
import { liveChanges } from './plan-facts';
import { finding, Rule } from './types';

interface RbacRule { readonly apiGroups: string[]; readonly resources: string[]; readonly verbs: string[] }
interface Subject { readonly kind: string; readonly name: string; readonly namespace?: string }

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObj) : isObj(v) ? [v] : []);

/** A Role/ClusterRole/RoleBinding/ClusterRoleBinding as a kubernetes_manifest or a kubernetes provider resource. */
function rbacOf(type: string, values: unknown): { kind: string; name: string; rules: RbacRule[]; subjects: Subject[]; roleRef?: string } | undefined {
  if (!isObj(values)) return undefined;
  if (type === 'kubernetes_manifest') {
    const m = values.manifest;
    if (!isObj(m) || !/^(Cluster)?Role(Binding)?$/.test(String(m.kind))) return undefined;
    return {
      kind: String(m.kind),
      name: String(isObj(m.metadata) ? m.metadata.name : '?'),
      rules: list(m.rules).map((r) => ({ apiGroups: strings(r.apiGroups), resources: strings(r.resources), verbs: strings(r.verbs) })),
      subjects: list(m.subjects).map((s) => ({ kind: String(s.kind), name: String(s.name), ...(typeof s.namespace === 'string' ? { namespace: s.namespace } : {}) })),
      ...(isObj(m.roleRef) ? { roleRef: `${String(m.roleRef.kind)}/${String(m.roleRef.name)}` } : {}),
    };
  }
  const kind = /^kubernetes_cluster_role_binding/.test(type) ? 'ClusterRoleBinding' : /^kubernetes_role_binding/.test(type) ? 'RoleBinding'
    : /^kubernetes_cluster_role(_v1)?$/.test(type) ? 'ClusterRole' : /^kubernetes_role(_v1)?$/.test(type) ? 'Role' : undefined;
  if (!kind) return undefined;
  const meta = list(values.metadata)[0];
  const ref = list(values.role_ref)[0];
  return {
    kind,
    name: String(meta?.name ?? '?'),
    rules: list(values.rule).map((r) => ({ apiGroups: strings(r.api_groups), resources: strings(r.resources), verbs: strings(r.verbs) })),
    subjects: list(values.subject).map((s) => ({ kind: String(s.kind), name: String(s.name), ...(typeof s.namespace === 'string' ? { namespace: s.namespace } : {}) })),
    ...(ref ? { roleRef: `${String(ref.kind)}/${String(ref.name)}` } : {}),
  };
}

/** Kinds whose `create` runs any pod in the namespace (a controller makes pods from them). */
const WORKLOADS = /^(pods|jobs|cronjobs|deployments|daemonsets|statefulsets|replicasets|jobsets|workflows|cronworkflows|workflowtemplates|leaderworkersets|\*)$/;

/** Why a rule is dangerous, in words; undefined for an ordinary grant. */
function danger(r: RbacRule): string | undefined {
  const verbs = new Set(r.verbs);
  const has = (...v: string[]) => v.some((x) => verbs.has(x)) || verbs.has('*');
  if (r.resources.includes('*') || verbs.has('*')) return 'a wildcard (every resource or every verb)';
  if (r.resources.some((x) => x === 'secrets') && has('get', 'list', 'watch')) return 'reads Secrets (every token and key in scope)';
  if (r.resources.some((x) => /^pods\/(exec|attach|portforward)$/.test(x))) return 'runs commands in pods (exec/attach/port-forward)';
  if (has('escalate', 'bind', 'impersonate')) return 'escalate, bind or impersonate: grants itself more';
  if (r.resources.some((x) => WORKLOADS.test(x)) && has('create', 'update', 'patch')) return 'creates workloads: any pod (any image, any service account) in scope';
  return undefined;
}

const PUBLIC_GROUPS = /^system:(authenticated|unauthenticated|anonymous|serviceaccounts)$/;
const BROAD_ROLES = /^ClusterRole\/(cluster-admin|admin|edit)$/;

const ruleText = (r: RbacRule) => `${r.verbs.join(',') || '?'} on ${r.resources.join(',') || '?'}${r.apiGroups.some((g) => g) ? ` (${r.apiGroups.filter((g) => g).join(',')})` : ''}`;
const subjectText = (s: Subject) => `${s.kind} ${s.namespace ? `${s.namespace}/` : ''}${s.name}`;

/**
 * A Role, ClusterRole or binding created or changed: the rules and subjects it adds, in words. Wildcards, Secret reads,
 * exec, escalate/bind/impersonate, cluster-admin/admin/edit bindings and public groups are errors; other grants and
 * new subjects are warnings, so each is read before it applies.
 */
export const rbacChange: Rule = {
  id: 'rbac-change',
  summary: 'a Kubernetes Role, ClusterRole or binding adds rules or subjects (wildcards, Secrets, exec, workloads, cluster-admin: errors)',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      if (c.action === 'delete' || c.action === 'forget') return [];
      const after = rbacOf(c.type, c.after);
      if (!after) return [];
      const before = rbacOf(c.type, c.before);
      const key = (x: unknown) => JSON.stringify(x);
      const newRules = after.rules.filter((r) => !before?.rules.some((b) => key(b) === key(r)));
      const newSubjects = after.subjects.filter((s) => !before?.subjects.some((b) => key(b) === key(s)));
      const refChanged = after.roleRef !== undefined && after.roleRef !== before?.roleRef;
      if (!newRules.length && !newSubjects.length && !refChanged) return [];
      const dangers = [
        ...newRules.flatMap((r) => { const d = danger(r); return d ? [`${oneLine(ruleText(r), 100)}: ${d}`] : []; }),
        ...newSubjects.filter((s) => PUBLIC_GROUPS.test(s.name)).map((s) => `${oneLine(subjectText(s), 100)}: everyone of that group`),
        ...(refChanged && BROAD_ROLES.test(after.roleRef!) ? [`binds ${after.roleRef}: full control of its scope`] : []),
      ];
      const parts = [
        ...(newRules.length ? [`rules ${newRules.slice(0, 6).map((r) => oneLine(ruleText(r), 100)).join('; ')}`] : []),
        ...(newSubjects.length ? [`subjects ${newSubjects.slice(0, 6).map((s) => oneLine(subjectText(s), 100)).join(', ')}`] : []),
        ...(refChanged ? [`role ${oneLine(after.roleRef!, 100)}`] : []),
      ];
      const scope = after.kind.startsWith('Cluster') ? 'in every namespace' : 'in its namespace';
      return [finding('rbac-change', dangers.length ? 'error' : 'warning', { stack: plan.stack, address: c.address },
        `${after.kind} ${oneLine(after.name, 80)} ${c.action === 'create' ? 'grants' : 'now grants'} ${scope}: ${parts.join('; ')}${dangers.length ? `. Risk: ${dangers.join('; ')}` : ''}`,
        'grant only the verbs and resources the component needs, in its own namespace, to its own service account')];
    }),
};
