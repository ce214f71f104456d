/**
 * No identity crosses between two environments of one project (docs/operations.md "Two environments from one
 * checkout"): dev and prod, each with every pipeline and every serve stack, synthesized with a 30-character project id
 * and the longest cluster names the schema allows (20 characters, config/schema.ts). Over every Google resource of
 * both: no project-scoped name, identity or Workload Identity principal is the same, and each fits its provider's
 * limits. Then a model of IAM as the synthesized bindings grant it: a dev pod's principal (its KSA's Workload Identity
 * principal, or the node service account for host-network pods), and every service account it can act as, holds no
 * role on any prod resource.
 *
 * Workload Identity principals (GKE "Workload Identity Federation for GKE", "identity sameness"): a KSA is the member
 * `serviceAccount:<project>.svc.id.goog[<namespace>/<ksa>]`, the same for a namespace/KSA pair in every cluster of the
 * project; so the KSA names carry the cluster (jobs/platform.ts workloadKsaNameOf, jobs/serve.ts serveIdentityOf).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TerraformStack, Testing } from 'cdktf';
import { loadDeployment } from '../../config/deployment';
import { buildApp } from '../../stacks/app';
import { configFile } from '../util';

type Json = Record<string, any>;
const PROJECT = 'acme-post-training-tpu-shared1'; // 30 characters: the longest project id
const CLUSTERS = { dev: 'dev-tpu-post-train-a', prod: 'prd-tpu-post-train-a' } as const; // 20 characters each
const SERVE = 'rl-qwen3,rl-gemma4,rl-llama3';

function synthesize(env: keyof typeof CLUSTERS) {
  const file = configFile((c) => {
    Object.assign(c, { project: PROJECT, clusterName: CLUSTERS[env], bucket: `acme-${env}-ckpt`, controlPlane: { ...c.controlPlane, authorizedCidrs: ['198.18.0.0/15'] } });
    c.tpu.reservation = `acme-${env}-v6e-32`;
  });
  const deployment = loadDeployment({ env: { CONFIG_FILE: file, SERVE, SINGLE_HOST_RESERVATION: `acme-${env}-v6e-8`, NOTIFY_EMAIL: 'oncall@acme.example', BUCKET_ACCESS: 'objects', STATE_BUCKET: 'acme-tf-state' } });
  const app = buildApp(deployment, { outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-ids-')) });
  const stacks: Record<string, Json> = {};
  for (const c of app.node.children) if (c instanceof TerraformStack) stacks[c.node.id] = JSON.parse(Testing.synth(c));
  return { deployment, stacks };
}
const dev = synthesize('dev');
const prod = synthesize('prod');

test('both environments have infra, every pipeline and a serve stack for each served pipeline', () => {
  expect(Object.keys(dev.stacks).sort()).toEqual(['infra', 'rl-gemma4', 'rl-llama3', 'rl-qwen3', 'serve-rl-gemma4', 'serve-rl-llama3', 'serve-rl-qwen3', 'sft-gemma4']);
  expect(Object.keys(prod.stacks).sort()).toEqual(Object.keys(dev.stacks).sort());
});

/** Resolves `${type.name.attr}` references of one stack to the referenced resource's literal attribute, where it has one. */
function resolver(tf: Json, project: string) {
  return (value: unknown): unknown => {
    if (typeof value !== 'string') return value;
    const m = /^\$\{([a-z0-9_]+)\.([A-Za-z0-9_-]+)\.([a-z_]+)\}$/.exec(value);
    if (!m) return value;
    const [, type, name, attr] = m;
    const r = tf.resource?.[type!]?.[name!];
    if (!r) return value;
    if (type === 'google_service_account') {
      const email = `${r.account_id}@${project}.iam.gserviceaccount.com`;
      return { email, member: `serviceAccount:${email}`, name: `projects/${project}/serviceAccounts/${email}`, id: `projects/${project}/serviceAccounts/${email}`, account_id: r.account_id }[attr!] ?? value;
    }
    if (type === 'google_secret_manager_secret') return { secret_id: r.secret_id, id: `projects/${project}/secrets/${r.secret_id}`, name: `projects/${project}/secrets/${r.secret_id}` }[attr!] ?? value;
    return r[attr!] ?? r.name ?? value;
  };
}

/** Project-scoped names of every Google resource: type/attribute -> values (node pools are named within their cluster). */
const NAMED: ReadonlyArray<readonly [string, string]> = [
  ['google_service_account', 'account_id'],
  ['google_secret_manager_secret', 'secret_id'],
  ['google_storage_bucket', 'name'],
  ['google_project_iam_custom_role', 'role_id'],
  ['google_compute_network', 'name'],
  ['google_compute_subnetwork', 'name'],
  ['google_compute_firewall', 'name'],
  ['google_compute_router', 'name'],
  ['google_compute_router_nat', 'name'],
  ['google_container_cluster', 'name'],
  ['google_logging_metric', 'name'],
  ['google_monitoring_alert_policy', 'display_name'],
  ['google_monitoring_notification_channel', 'display_name'],
  // The dashboard's resource name (projects/<project>/dashboards/tpu-post-training-<cluster>) is inside its JSON.
  ['google_monitoring_dashboard', 'dashboard_json'],
];

function names(env: typeof dev): Map<string, string> {
  const out = new Map<string, string>();
  for (const [stack, tf] of Object.entries(env.stacks)) {
    for (const [type, attribute] of NAMED) {
      for (const [id, r] of Object.entries<Json>(tf.resource?.[type] ?? {})) out.set(`${type}.${attribute}=${JSON.stringify(r[attribute])}`, `${stack}:${id}`);
    }
  }
  return out;
}

test('no project-scoped name of dev is one of prod (service accounts, secrets, buckets, roles, network, metrics, policies)', () => {
  const d = names(dev);
  const p = names(prod);
  expect(d.size).toBeGreaterThan(20);
  expect([...d.keys()].filter((k) => p.has(k))).toEqual([]);
  // Every Google resource type the syntheses hold with a project-scoped name is in NAMED (a new one must be added).
  const types = new Set(Object.values(dev.stacks).flatMap((tf) => Object.keys(tf.resource ?? {})).filter((t) => t.startsWith('google_')));
  const unnamed = ['google_container_node_pool', 'google_project_iam_member', 'google_service_account_iam_member', 'google_storage_bucket_iam_member', 'google_secret_manager_secret_iam_member', 'google_project_service'];
  expect([...types].filter((t) => !NAMED.some(([n]) => n === t) && !unnamed.includes(t))).toEqual([]);
});

test('every name fits its limit: service account ids 6-30 of [a-z0-9-], KSA names DNS subdomains, secret and role ids', () => {
  for (const env of [dev, prod]) {
    for (const tf of Object.values(env.stacks)) {
      for (const r of Object.values<Json>(tf.resource?.google_service_account ?? {})) expect(r.account_id).toMatch(/^[a-z][-a-z0-9]{4,28}[a-z0-9]$/);
      for (const r of Object.values<Json>(tf.resource?.google_secret_manager_secret ?? {})) expect(r.secret_id).toMatch(/^[A-Za-z0-9_-]{1,255}$/);
      for (const r of Object.values<Json>(tf.resource?.google_project_iam_custom_role ?? {})) expect(r.role_id).toMatch(/^[a-zA-Z0-9_.]{3,64}$/);
      for (const r of Object.values<Json>(tf.resource?.kubernetes_service_account_v1 ?? {})) {
        expect(r.metadata.name.length).toBeLessThanOrEqual(253);
        expect(r.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      }
      for (const type of ['google_compute_network', 'google_compute_subnetwork', 'google_compute_firewall', 'google_compute_router']) {
        for (const r of Object.values<Json>(tf.resource?.[type] ?? {})) expect(r.name).toMatch(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/);
      }
      for (const r of Object.values<Json>(tf.resource?.google_container_node_pool ?? {})) expect(r.name.length).toBeLessThanOrEqual(40);
    }
  }
  // The long cluster names are kept whole where they fit, and cut with a hash where they do not (the serve accounts).
  const ids = (env: typeof dev) => Object.values(env.stacks).flatMap((tf) => Object.values<Json>(tf.resource?.google_service_account ?? {}).map((r) => r.account_id)).sort();
  expect(ids(dev)).toContain('dev-tpu-post-train-a-gke-wl-sa');
  expect(ids(dev).filter((id) => /-[0-9a-f]{6}$/.test(id))).toHaveLength(3);
});

/** An IAM binding as synthesized, its references resolved: who holds which role on what. */
interface Binding {
  readonly env: 'dev' | 'prod';
  readonly on: string;
  readonly role: string;
  readonly member: string;
}

function bindings(env: typeof dev, name: 'dev' | 'prod'): Binding[] {
  const out: Binding[] = [];
  for (const tf of Object.values(env.stacks)) {
    const resolve = resolver(tf, PROJECT);
    const add = (type: string, target: (r: Json) => string) => {
      for (const r of Object.values<Json>(tf.resource?.[type] ?? {})) out.push({ env: name, on: target(r), role: String(resolve(r.role)), member: String(resolve(r.member)) });
    };
    add('google_service_account_iam_member', (r) => `serviceAccount:${String(resolve(r.service_account_id)).split('/').pop()}`);
    add('google_storage_bucket_iam_member', (r) => `bucket:${String(resolve(r.bucket))}`);
    add('google_secret_manager_secret_iam_member', (r) => `secret:${String(resolve(r.secret_id)).split('/').pop()}`);
    add('google_project_iam_member', (r) => `project:${r.project}`);
  }
  return out;
}

/** Every principal a pod of `env` acts as: its KSAs' Workload Identity principals, the node account, and whom they can impersonate. */
function podPrincipals(env: typeof dev, all: readonly Binding[]): Set<string> {
  const principals = new Set<string>();
  for (const tf of Object.values(env.stacks)) {
    for (const r of Object.values<Json>(tf.resource?.kubernetes_service_account_v1 ?? {})) {
      principals.add(`serviceAccount:${PROJECT}.svc.id.goog[${r.metadata.namespace}/${r.metadata.name}]`);
    }
  }
  principals.add(`serviceAccount:${env.deployment.platform.nodeGsaEmail}`); // host-network pods act as the node account
  const IMPERSONATE = ['roles/iam.workloadIdentityUser', 'roles/iam.serviceAccountTokenCreator', 'roles/iam.serviceAccountUser'];
  for (let grew = true; grew; ) {
    grew = false;
    for (const b of all) {
      if (IMPERSONATE.includes(b.role) && principals.has(b.member) && !principals.has(b.on)) {
        principals.add(b.on);
        grew = true;
      }
    }
  }
  return principals;
}

test("a dev pod's principal, and every account it can act as, holds no role on any prod resource", () => {
  const all = [...bindings(dev, 'dev'), ...bindings(prod, 'prod')];
  const devPods = podPrincipals(dev, all);
  // The model sees what a dev pod does hold: its own bucket and its own token secret, through the workload account.
  const devGrants = all.filter((b) => devPods.has(b.member));
  expect(devGrants.some((b) => b.on === 'bucket:acme-dev-ckpt')).toBe(true);
  expect(devGrants.some((b) => b.on === `secret:${CLUSTERS.dev}-hf-token`)).toBe(true);
  expect(devPods.has(`serviceAccount:${dev.deployment.platform.workloadGsaEmail}`)).toBe(true);
  // ... and nothing of prod's: no binding of prod (bucket, secret, service account) names a dev principal.
  const crossing = all.filter((b) => b.env === 'prod' && !b.on.startsWith('project:') && devPods.has(b.member));
  expect(crossing).toEqual([]);
  // Project-level roles (logging, monitoring, registry reads of the node accounts) are each environment's own account's.
  expect(all.filter((b) => b.env === 'prod' && b.on.startsWith('project:') && devPods.has(b.member))).toEqual([]);
  // The principals themselves differ: no Workload Identity member of dev is one of prod.
  const wi = (env: 'dev' | 'prod') => all.filter((b) => b.env === env && b.role === 'roles/iam.workloadIdentityUser').map((b) => b.member);
  expect(wi('dev').length).toBe(5);
  // The steps' KSA and the rehearsal verdict writer's own (constructs/identity.ts), both per cluster.
  expect(wi('dev')).toEqual(expect.arrayContaining([dev.deployment.platform.serviceAccountName, dev.deployment.platform.verdictServiceAccountName].map((k) => `serviceAccount:${PROJECT}.svc.id.goog[default/${k}]`)));
  expect(wi('dev').filter((m) => wi('prod').includes(m))).toEqual([]);
});

test('the model would catch a shared principal: with one KSA name in both clusters, a dev pod reaches prod', () => {
  const all = [...bindings(dev, 'dev'), ...bindings(prod, 'prod')];
  // Rewrite prod's workload binding to the KSA of dev's namespace and name (what a KSA without the cluster gave).
  const devKsa = `serviceAccount:${PROJECT}.svc.id.goog[default/${dev.deployment.platform.serviceAccountName}]`;
  const prodKsa = `serviceAccount:${PROJECT}.svc.id.goog[default/${prod.deployment.platform.serviceAccountName}]`;
  const shared = all.map((b) => (b.member === prodKsa ? { ...b, member: devKsa } : b));
  const crossing = shared.filter((b) => b.env === 'prod' && !b.on.startsWith('project:') && podPrincipals(dev, shared).has(b.member));
  expect(crossing.map((b) => b.on)).toContain('bucket:acme-prod-ckpt');
});
