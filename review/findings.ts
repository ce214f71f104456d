/**
 * Review rules: domain facts in, findings out. Each finding names the Terraform resource address, says what is
 * wrong in the reviewer's terms, and gives the fix. Errors make `npm run review` exit non-zero.
 *
 * Pure: works on `StackModel`s (and on stack texts for the secret scan).
 */
import type { StackModel, TpuPool } from './model';
import { PLACEHOLDERS_LOCAL, PUBLIC_OPT_IN_NAME } from '../jobs/platform';

export type Severity = 'error' | 'warning' | 'note';

export interface Finding {
  readonly severity: Severity;
  /** Stable rule id, e.g. `control-plane-open`. */
  readonly rule: string;
  readonly stack: string;
  readonly address: string;
  readonly message: string;
  readonly fix: string;
}

const OPEN_CIDRS = new Set(['0.0.0.0/0', '::/0']);
const PUBLIC_MEMBERS = new Set(['allUsers', 'allAuthenticatedUsers']);
/** Roles that make a service account a project admin (CKV_GCP_42's `.*(admin|Admin|editor|owner)`). */
const ADMIN_ROLE = /(admin|Admin|editor|owner)/;
const DEFAULT_COMPUTE_SA = /-compute@developer\.gserviceaccount\.com$/;

function f(severity: Severity, rule: string, where: { stack: string; address: string }, message: string, fix: string): Finding {
  return { severity, rule, stack: where.stack, address: where.address, message, fix };
}

// ---------------------------------------------------------------------------------------------------------------
// access

function controlPlaneRules(m: StackModel): Finding[] {
  const out: Finding[] = [];
  for (const cp of m.controlPlanes) {
    const open = (cp.authorizedNetworks ?? []).filter((n) => OPEN_CIDRS.has(n.cidr));
    for (const n of open) {
      // An entry named PUBLIC_OPT_IN_NAME was opted into explicitly (ALLOW_PUBLIC_CONTROL_PLANE, as the tutorials do):
      // still reported, as a warning, so the PR shows it without failing every check that follows.
      const optedIn = n.displayName === PUBLIC_OPT_IN_NAME;
      out.push(
        f(optedIn ? 'warning' : 'error', 'control-plane-open', cp,
          `cluster ${cp.name}: the control-plane allow-list contains ${n.cidr}${n.displayName ? ` (${n.displayName})` : ''}: ` +
            'any address on the internet can reach the Kubernetes API' +
            (optedIn ? ' (explicitly opted in with ALLOW_PUBLIC_CONTROL_PLANE)' : ''),
          'remove it from the authorized networks; give CI runners the DNS-based endpoint (IAM-authorized) instead, ' +
            'or list the office/VPN ranges that need kubectl'),
      );
    }
    if (cp.authorizedNetworks === undefined && cp.ipEndpointEnabled && !cp.privateEndpoint) {
      out.push(
        f('warning', 'control-plane-no-allowlist', cp,
          `cluster ${cp.name}: no master_authorized_networks_config, so the public IP endpoint accepts any source address (CKV_GCP_20)`,
          'set master_authorized_networks_config with the ranges that need the API, or disable the IP endpoint and use the DNS endpoint'),
      );
    }
    if (cp.legacyAbac) {
      out.push(f('error', 'legacy-abac', cp, `cluster ${cp.name}: enable_legacy_abac is true (CKV_GCP_7)`, 'remove enable_legacy_abac; use RBAC'));
    }
    if (!cp.privateNodes) {
      out.push(
        f('warning', 'public-nodes', cp, `cluster ${cp.name}: nodes get public IPs (private_cluster_config.enable_private_nodes is not true)`,
          'set private_cluster_config.enable_private_nodes = true and give egress through Cloud NAT'),
      );
    }
    if (!cp.removeDefaultNodePool && cp.defaultPoolServiceAccount === undefined) {
      out.push(
        f('error', 'node-pool-default-sa', cp,
          `cluster ${cp.name}: the default node pool runs as the Compute Engine default service account (project Editor)`,
          'set remove_default_node_pool = true (manage pools separately) or node_config.service_account to a dedicated GSA'),
      );
    }
  }
  return out;
}

function iamRules(m: StackModel): Finding[] {
  const out: Finding[] = [];
  for (const g of m.grants) {
    if (PUBLIC_MEMBERS.has(g.member)) {
      out.push(
        f('error', 'public-iam', g, `${g.role} is granted to ${g.member} on ${g.scope} ${g.target}: anyone can use it`,
          `remove the ${g.member} member; grant the role to the workload service account instead`),
      );
    }
    const isServiceAccount = g.member.startsWith('serviceAccount:') && !g.member.includes('.svc.id.goog[');
    if (g.scope === 'project' && isServiceAccount && ADMIN_ROLE.test(g.role)) {
      out.push(
        f('error', 'sa-project-admin', g,
          `${g.member} gets ${g.role} on the whole project ${g.target} (CKV_GCP_42): it can act on every resource of that kind in the project`,
          `grant the role on the one resource that needs it (e.g. google_storage_bucket_iam_member on the bucket), ` +
            'or a narrower role such as roles/storage.objectUser'),
      );
    }
  }
  return out;
}

function poolServiceAccountRule(m: StackModel): Finding[] {
  return [...m.tpuPools, ...m.cpuPools]
    .filter((p) => !p.serviceAccount || p.serviceAccount === 'default' || DEFAULT_COMPUTE_SA.test(p.serviceAccount))
    .map((p) =>
      f('error', 'node-pool-default-sa', p,
        `node pool ${p.name} has no dedicated service account: its nodes run as the Compute Engine default service account (project Editor)`,
        'set node_config.service_account to the node GSA (logging, monitoring, artifact registry reader) ' +
          'with oauth_scopes cloud-platform'),
    );
}

function bucketRules(m: StackModel): Finding[] {
  const out: Finding[] = [];
  for (const b of m.buckets) {
    if (!b.uniformAccess) {
      out.push(
        f('warning', 'bucket-acls', b, `bucket ${b.name} allows object ACLs (uniform_bucket_level_access is not true)`,
          'set uniform_bucket_level_access = true so IAM is the only way in'),
      );
    }
    if (b.publicAccessPrevention !== 'enforced') {
      out.push(
        f('note', 'bucket-public-access', b,
          `bucket ${b.name}: public_access_prevention is ${b.publicAccessPrevention ?? 'inherited'}, not enforced`,
          'set public_access_prevention = "enforced"'),
      );
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// capacity

function tpuPoolRules(m: StackModel): Finding[] {
  const out: Finding[] = [];
  for (const p of m.tpuPools) {
    if (!p.slice) {
      out.push(
        f('error', 'tpu-slice-unknown', p, `TPU pool ${p.name}: ${p.sliceError ?? 'no topology'}`,
          'use a machine type and topology from the TPU table (jobs/tpu.ts); set placement_policy.tpu_topology'),
      );
      continue;
    }
    const s = p.slice;
    // Flex-start is the one exception: GKE provisions such a slice by scaling its pool 0 -> all VMs at once.
    const flexStartScaling =
      p.capacity === 'flex-start' &&
      Number(p.autoscaling?.total_min_node_count ?? p.autoscaling?.min_node_count ?? 0) === 0 &&
      Number(p.autoscaling?.total_max_node_count ?? p.autoscaling?.max_node_count) === s.vms;
    if (p.autoscaling && !flexStartScaling) {
      out.push(
        f(s.multiHost ? 'error' : 'warning', 'tpu-pool-autoscales', p,
          `TPU pool ${p.name} (${s.topology}, ${s.chips} chips, ${s.vms} hosts) autoscales` +
            (s.multiHost ? ': a multi-host slice is atomic; scaling it adds or removes whole VMs the slice cannot use' : ''),
          p.capacity === 'flex-start'
            ? `a flex-start slice scales 0 -> ${s.vms} (total_min_node_count = 0, total_max_node_count = ${s.vms})`
            : `remove autoscaling and set node_count = ${s.vms}`),
      );
    }
    if (p.nodeCount !== undefined && p.nodeCount !== s.vms) {
      out.push(
        f('error', 'tpu-node-count', p,
          `TPU pool ${p.name}: node_count ${p.nodeCount} disagrees with topology ${s.topology} on ${s.machineType} ` +
            `(${s.chips} chips = ${s.vms} VMs of ${s.chipsPerVm})`,
          `set node_count = ${s.vms}, or change the topology`),
      );
    }
    if (p.nodeCount === undefined && !p.autoscaling) {
      out.push(f('warning', 'tpu-node-count', p, `TPU pool ${p.name}: node_count is not set`, `set node_count = ${s.vms}`));
    }
    if (s.multiHost && !p.topology) {
      out.push(
        f('error', 'tpu-no-placement', p, `TPU pool ${p.name}: multi-host slice without placement_policy.tpu_topology`,
          `set placement_policy { type = "COMPACT", tpu_topology = "${s.topology}" }`),
      );
    }
    out.push(...capacityRules(p));
  }
  return out;
}

function capacityRules(p: TpuPool): Finding[] {
  if (p.reservationType === 'SPECIFIC_RESERVATION' && (p.reservations.length === 0 || p.reservations.every((v) => v.trim() === ''))) {
    return [
      f('error', 'reservation-without-name', p,
        `TPU pool ${p.name} consumes a SPECIFIC_RESERVATION but names no reservation`,
        'set reservation_affinity { key = "compute.googleapis.com/reservation-name", values = [RESERVATION] }, ' +
          'or use spot / flex-start (consume_reservation_type = "NO_RESERVATION")'),
    ];
  }
  if (p.capacity === 'on-demand') {
    return [
      f('warning', 'tpu-on-demand', p,
        `TPU pool ${p.name} has neither a reservation, spot nor flex-start: on-demand TPU capacity is rarely available and the pool may never come up`,
        'set a reservation (RESERVATION), or spot / flex-start'),
    ];
  }
  if ((p.capacity === 'spot' || p.capacity === 'flex-start') && p.reservationType && p.reservationType !== 'NO_RESERVATION') {
    return [
      f('error', 'capacity-conflict', p,
        `TPU pool ${p.name} is ${p.capacity} but reservation_affinity is ${p.reservationType}`,
        'set consume_reservation_type = "NO_RESERVATION" for spot or flex-start'),
    ];
  }
  return [];
}

// ---------------------------------------------------------------------------------------------------------------
// workloads

/** `repo/image:tag` or `@sha256:`; the tag is after the last `/`. */
export function imageTag(image: string): string | undefined {
  if (image.includes('@')) return image.slice(image.indexOf('@') + 1);
  const last = image.slice(image.lastIndexOf('/') + 1);
  return last.includes(':') ? last.slice(last.indexOf(':') + 1) : undefined;
}

function jobSetRules(m: StackModel): Finding[] {
  const out: Finding[] = [];
  for (const j of m.jobsets) {
    if (j.ttlSecondsAfterFinished !== undefined) {
      out.push(
        f('error', 'jobset-ttl', j,
          `JobSet ${j.name} sets ttlSecondsAfterFinished=${String(j.ttlSecondsAfterFinished)}: once the cluster deletes the finished JobSet, ` +
            `the next apply creates it again and re-runs ${j.tpuChips > 0 ? `on ${j.tpuChips} chips` : 'the step'}`,
          'remove spec.ttlSecondsAfterFinished; clean up with `cdktf destroy <pipeline>` and re-run with a new run id'),
      );
    }
    for (const { image, container } of j.images) {
      const tag = imageTag(image);
      if (tag === undefined || tag === 'latest') {
        out.push(
          // A warning, not an error: `latest` exists and is what upstream runs (the Pathways images have no tag that
          // can be shown to match the workload's JAX); an error would fail every default review.
          f('warning', 'image-unpinned', j,
            `JobSet ${j.name} container ${container} uses ${image} (${tag === undefined ? 'no tag' : 'the latest tag'}): ` +
              'a re-run or a node replacement pulls a different image',
            'pin a digest you have checked (@sha256:..., gcloud artifacts docker images describe <image>:latest) or a version tag that exists'),
        );
      }
    }
    if (!j.queueName && j.tpuChips > 0) {
      out.push(
        f('warning', 'jobset-no-queue', j, `JobSet ${j.name} requests ${j.tpuChips} TPU chips without a kueue.x-k8s.io/queue-name label`,
          'set metadata.labels["kueue.x-k8s.io/queue-name"] to the local queue so Kueue admits it against the quota'),
      );
    }
    if (j.waits && j.timeoutSeconds === undefined) {
      out.push(
        f('note', 'jobset-no-timeout', j, `JobSet ${j.name} waits for completion without timeouts.create (provider default applies)`,
          'set timeouts.create to the longest the step may hold its slice'),
      );
    }
  }
  return out;
}

function sliceKey(topology: string | undefined, chipsPerVm: number | undefined): string {
  return `${topology ?? '?'}/${chipsPerVm ?? '?'}`;
}

/** Cross-stack: a pipeline's TPU steps must select a slice `infra` has, and fit the Kueue TPU quota. */
function crossStackRules(models: readonly StackModel[]): Finding[] {
  const out: Finding[] = [];
  const pools = models.flatMap((m) => m.tpuPools).filter((p) => p.slice);
  const poolNames = new Set(models.flatMap((m) => [...m.tpuPools, ...m.cpuPools]).map((p) => p.name));
  const shapes = new Map(pools.map((p) => [sliceKey(p.slice!.topology, p.slice!.chipsPerVm), p]));
  const quotas = models.flatMap((m) => m.kueue).filter((q) => q.tpuChips !== undefined);
  const hasInfra = pools.length > 0 || models.some((m) => m.controlPlanes.length > 0);
  for (const j of models.flatMap((m) => m.jobsets)) {
    if (j.tpuChips > 0 && hasInfra && !shapes.has(sliceKey(j.tpuTopology, j.tpuChipsPerPod))) {
      const have = pools.map((p) => `${p.name} (${p.slice!.topology}, ${p.slice!.chipsPerVm} chips/VM)`).join(', ') || 'none';
      out.push(
        f('error', 'pipeline-slice-missing', j,
          `JobSet ${j.name} selects a ${j.tpuTopology ?? '(no topology)'} slice with ${j.tpuChipsPerPod ?? '?'} chips per pod, ` +
            `which no TPU pool in infra provides (infra has: ${have})`,
          'add the slice to the infra config (TPU pool groups) or point the pipeline at an existing slice'),
      );
    }
    for (const pool of j.nodePools) {
      if (hasInfra && !poolNames.has(pool)) {
        out.push(
          f('error', 'pipeline-slice-missing', j, `JobSet ${j.name} selects node pool ${pool}, which infra does not have`,
            `use one of: ${[...poolNames].join(', ')}`),
        );
      }
    }
    for (const q of quotas) {
      if (j.tpuChips > q.tpuChips!) {
        out.push(
          f('error', 'kueue-quota-short', j,
            `JobSet ${j.name} requests ${j.tpuChips} TPU chips but the Kueue ClusterQueue quota (${q.address}) is ${q.tpuChips}: it is never admitted`,
            'raise the quota to the chips of all slices (it is derived from the TPU pool groups) or shrink the step'),
        );
      }
    }
  }
  const infraChips = pools.reduce((sum, p) => sum + p.slice!.chips, 0);
  for (const q of quotas) {
    if (pools.length > 0 && q.tpuChips! < infraChips) {
      out.push(
        f('warning', 'kueue-quota-short', q,
          `Kueue TPU quota ${q.tpuChips} is below the ${infraChips} chips of the TPU pools: some slices can never be used through the queue`,
          `set the google.com/tpu nominalQuota to ${infraChips}`),
      );
    } else if (pools.length > 0 && q.tpuChips! > infraChips) {
      out.push(
        f('warning', 'kueue-quota-over', q,
          `Kueue TPU quota ${q.tpuChips} exceeds the ${infraChips} chips of the TPU pools: Kueue admits work that cannot schedule`,
          `set the google.com/tpu nominalQuota to ${infraChips}`),
      );
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// secrets in the synthesized output

interface SecretPattern {
  readonly what: string;
  readonly pattern: RegExp;
}

const SECRET_PATTERNS: readonly SecretPattern[] = [
  { what: 'a Hugging Face token', pattern: /\bhf_[A-Za-z0-9]{20,}\b/ },
  { what: 'a private key', pattern: /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----/ },
  { what: 'a service account key', pattern: /"private_key_id"\s*:\s*"[0-9a-f]{20,}"|\\"private_key_id\\"/ },
  { what: 'a GitHub token', pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}\b/ },
  { what: 'an AWS access key', pattern: /\bAKIA[0-9A-Z]{16}\b/ },
  { what: 'a Google OAuth access token', pattern: /\bya29\.[A-Za-z0-9_-]{20,}/ },
];

/** Finds the address of the resource (or top-level block) whose values contain `needle`. */
function addressAt(json: unknown, needle: string): string {
  let found = '';
  const walk = (v: unknown, pathParts: string[]): void => {
    if (found) return;
    if (typeof v === 'string') {
      if (v.includes(needle)) found = pathParts.join('.');
      return;
    }
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, [...pathParts, String(i)]));
    if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k.includes(needle)) found = [...pathParts, k].join('.');
        walk(x, [...pathParts, k]);
      }
    }
  };
  walk(json, []);
  const parts = found.split('.');
  if (parts[0] === 'resource' || parts[0] === 'data') {
    return parts[0] === 'data' ? `data.${parts[1]}.${parts[2]}` : `${parts[1]}.${parts[2]}`;
  }
  return parts.slice(0, 2).join('.') || '(stack)';
}

/** Scans a stack's synthesized text for secret-looking values; never prints the value itself. */
export function secretFindings(stack: string, text: string, json: unknown): Finding[] {
  const out: Finding[] = [];
  for (const { what, pattern } of SECRET_PATTERNS) {
    const match = pattern.exec(text);
    if (!match) continue;
    const address = addressAt(json, match[0].replace(/\\"/g, '"').slice(0, 24));
    out.push(
      f('error', 'secret-in-output', { stack, address },
        `${what} (${match[0].slice(0, 6)}…, redacted) is in the synthesized Terraform of ${stack}: it ends up in plans, state and CI logs`,
        'remove it from config/code; keep it in Secret Manager (HF token: `gcloud secrets versions add`) and mount it with the SecretProviderClass'),
    );
  }
  return out;
}

function secretVersionRule(m: StackModel): Finding[] {
  return m.secretVersionsWithData.map((address) =>
    f('error', 'secret-in-output', { stack: m.name, address },
      `${address} puts a secret payload into Terraform (secret_data is stored in state and shown to anyone who can read plans)`,
      'drop the google_secret_manager_secret_version; add the version out of band with `gcloud secrets versions add`'),
  );
}

/** A data source that reads the token's value puts it into state and every plan. */
function secretReadRule(m: StackModel): Finding[] {
  return m.secretReadsIntoState.map((address) =>
    f('error', 'secret-read-into-state', { stack: m.name, address },
      `${address} reads a secret's payload into Terraform state (secret_data)`,
      'check the version with fetch_secret_data = false (metadata only), or mount the secret in the pod instead'),
  );
}

/** The example config's placeholders are still in the stack: its plan fails at the preflight guard. */
function placeholderRule(m: StackModel): Finding[] {
  if (m.placeholders.length === 0) return [];
  return [
    // A warning, not an error: the example config is reviewed offline too (CI without project variables).
    f('warning', 'placeholders', { stack: m.name, address: `local.${PLACEHOLDERS_LOCAL}` },
      `the config still holds the example's placeholders: ${m.placeholders.join('; ')}; a plan of this stack fails at once`,
      'set those variables (or keys in CONFIG_FILE) to your own values'),
  ];
}

// ---------------------------------------------------------------------------------------------------------------

const ORDER: Record<Severity, number> = { error: 0, warning: 1, note: 2 };

/** Runs every rule over all stacks; `texts` (stack -> synthesized text and JSON) feeds the secret scan. */
export function review(models: readonly StackModel[], texts: ReadonlyArray<{ stack: string; text: string; json: unknown }> = []): Finding[] {
  const all = [
    ...models.flatMap((m) => [
      ...controlPlaneRules(m),
      ...iamRules(m),
      ...poolServiceAccountRule(m),
      ...bucketRules(m),
      ...tpuPoolRules(m),
      ...jobSetRules(m),
      ...secretVersionRule(m),
      ...secretReadRule(m),
      ...placeholderRule(m),
    ]),
    ...crossStackRules(models),
    ...texts.flatMap((t) => secretFindings(t.stack, t.text, t.json)),
  ];
  return all.sort((a, b) => ORDER[a.severity] - ORDER[b.severity] || a.stack.localeCompare(b.stack) || a.address.localeCompare(b.address));
}

export function hasErrors(findings: readonly Finding[]): boolean {
  return findings.some((x) => x.severity === 'error');
}
