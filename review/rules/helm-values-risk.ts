import type * as Yaml from 'yaml';
import { jsonPathStep } from '../../util/json-path';
import { oneLine } from '../plan';
import { isObj, KNOWN_AFTER_APPLY } from '../values';
import { liveChanges } from './plan-facts';
import { finding, Rule } from './types';

/** Helm value paths (values documents and `set` names) by the risk a change of them carries. */
const RISKS: ReadonlyArray<{ readonly what: string; readonly path: RegExp; readonly severity?: 'warning' }> = [
  { what: 'authentication (who may use the service: Argo server auth modes, SSO, passwords, TLS)', path: /auth|sso|oidc|password|token|secure|tls|cert|login/i },
  { what: 'exposure (who can reach it: Service type, LoadBalancer, NodePort, Ingress, host network or ports)', path: /service\.type|servicetype|loadbalancer|nodeport|ingress|gateway|hostnetwork|hostport|externalip|expose|route/i },
  { what: 'RBAC (what its service accounts may do, in which namespaces)', path: /rbac|clusterrole|\brole|serviceaccount|namespaced|clusterscope|singlenamespace|workflownamespaces|managednamespace|createaggregateroles/i },
  // An upgrade changes these on purpose: a warning, so a chart upgrade can still deploy; the others are errors.
  { what: 'images (what code runs in the cluster)', path: /image|repository|registry|\btag\b|digest/i, severity: 'warning' },
  { what: 'pod security (privilege of its pods)', path: /securitycontext|privileged|runasuser|runasnonroot|capabilit|podsecurity|allowprivilegeescalation/i },
];

/** Values a new release sets that are risky whatever they were before. */
const RISKY_VALUES: ReadonlyArray<{ readonly path: RegExp; readonly value: RegExp; readonly what: string }> = [
  { path: /service\.type|servicetype/i, value: /^(LoadBalancer|NodePort)$/, what: 'exposed outside the cluster' },
  { path: /authmodes?/i, value: /\bserver\b/, what: "Argo's `server` auth mode: every request acts as the server's own account, no login" },
  { path: /privileged|hostnetwork|hostpid/i, value: /^true$/, what: 'privileged or host-level pods' },
];

function parseValues(text: string): unknown[] {
  if (text.length > 1_000_000) return [{ '(values over 1 MB, not read)': true }];
  try {
    return [JSON.parse(text) as unknown];
  } catch {
    try {
      const { parseAllDocuments } = require('yaml') as typeof Yaml;
      return parseAllDocuments(text).map((d) => d.toJS({ maxAliasCount: 100 }) as unknown);
    } catch {
      return [{ '(values the review cannot parse)': text.length }];
    }
  }
}

/** Every leaf of a release's values (documents and `set`/`set_list`/`set_sensitive`) by its dotted path. */
export function helmLeaves(values: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!isObj(values)) return out;
  const put = (path: string, v: unknown, depth = 0): void => {
    if (out.size > 5000 || depth > 40) return;
    if (Array.isArray(v)) return v.forEach((x, i) => put(jsonPathStep(path, i), x, depth + 1));
    if (isObj(v)) return Object.entries(v).forEach(([k, x]) => put(jsonPathStep(path, k), x, depth + 1));
    out.set(path, JSON.stringify(v) ?? 'null');
  };
  const docs = Array.isArray(values.values) ? values.values : [];
  docs.forEach((d) => (typeof d === 'string' ? (d === KNOWN_AFTER_APPLY ? out.set('(values)', d) : parseValues(d).forEach((x) => put('', x))) : put('', d)));
  for (const key of ['set', 'set_list', 'set_sensitive']) {
    for (const s of Array.isArray(values[key]) ? values[key] : []) if (isObj(s) && typeof s.name === 'string') put(s.name, key === 'set_sensitive' ? '(sensitive)' : (s.value ?? s.values));
  }
  return out;
}

/**
 * A `helm_release` whose values change a setting that decides authentication, exposure, RBAC, images or pod security
 * (or a new release that sets a risky one): the chart renders them into objects the review never sees (Deployments,
 * Services, Roles), so the value is all there is to review.
 */
export const helmValuesRisk: Rule = {
  id: 'helm-values-risk',
  summary: "a Helm release's values change its authentication, exposure, RBAC or pod security (errors) or its images (a warning)",
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      if (c.type !== 'helm_release' || (c.action !== 'update' && c.action !== 'replace' && c.action !== 'create')) return [];
      const before = c.action === 'create' ? new Map<string, string>() : helmLeaves(c.before);
      const after = helmLeaves(c.after);
      const changed = [...new Set([...before.keys(), ...after.keys()])].filter((k) => before.get(k) !== after.get(k));
      const shown = (v?: string) => (v === undefined ? '(unset)' : oneLine(v, 60));
      let severe = false;
      const lines = RISKS.flatMap((r) => {
        // A new release: only its risky values (below); every value of it is new.
        const hits = c.action === 'create' ? [] : changed.filter((k) => r.path.test(k));
        if (hits.length && r.severity !== 'warning') severe = true;
        return hits.length ? [`${r.what}: ${hits.slice(0, 5).map((k) => `${oneLine(k, 60)} ${shown(before.get(k))} -> ${shown(after.get(k))}`).join(', ')}${hits.length > 5 ? `, ${hits.length - 5} more` : ''}`] : [];
      });
      const risky = changed.flatMap((k) => RISKY_VALUES.filter((x) => x.path.test(k) && x.value.test(String(safeParse(after.get(k))))).map((x) => `${oneLine(k, 60)}: ${x.what}`));
      if (!lines.length && !risky.length) return [];
      const name = typeof (c.after as { name?: unknown })?.name === 'string' ? oneLine(String((c.after as { name: string }).name), 60) : c.address;
      return [finding('helm-values-risk', risky.length || severe ? 'error' : 'warning', { stack: plan.stack, address: c.address },
        `Helm release ${name} changes values the chart turns into security settings: ${[...lines, ...risky].join('; ')}`,
        'check each value against the chart at its version (what it renders), and keep auth on, the Service internal, RBAC namespaced and images pinned by digest')];
    }),
};

function safeParse(text: string | undefined): unknown {
  try {
    return text === undefined ? '' : JSON.parse(text);
  } catch {
    return text;
  }
}
