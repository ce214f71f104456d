import { ProjectIamMember } from '@cdktf/provider-google/lib/project-iam-member';
import { ServiceAccount } from '@cdktf/provider-google/lib/service-account';
import { ServiceAccountIamMember } from '@cdktf/provider-google/lib/service-account-iam-member';
import { RoleBindingV1 } from '@cdktf/provider-kubernetes/lib/role-binding-v1';
import { RoleV1 } from '@cdktf/provider-kubernetes/lib/role-v1';
import { ServiceAccountV1 } from '@cdktf/provider-kubernetes/lib/service-account-v1';
import { ITerraformDependable } from 'cdktf';
import { Construct } from 'constructs';
import { Platform, workloadIdentityMember } from '../jobs/platform';
import { VERDICT_WRITER_RBAC_RULES } from '../jobs/rehearsal-record';

/** Project roles of the node service account: logs, metrics, image pulls. Nothing that writes data. */
export const NODE_ROLES = [
  'roles/logging.logWriter',
  'roles/monitoring.metricWriter',
  'roles/monitoring.viewer',
  'roles/stackdriver.resourceMetadata.writer',
  'roles/artifactregistry.reader',
] as const;

export interface IdentityProps {
  readonly platform: Platform;
}

/**
 * The two Google service accounts and the two Kubernetes service accounts pods run as (the steps', the verdict writer's).
 *
 * - node GSA `<cluster>-gke-np-sa`: every node pool's identity, with NODE_ROLES only.
 * - workload GSA `<cluster>-gke-wl-sa`: no project role at all; the bucket and the secret grant it
 *   access on themselves (see TrainingBucket, HfTokenSecret).
 * - KSA `<cluster>-workloads` in the pipelines' namespace (every step's pods), bound to the workload GSA by Workload Identity (the cluster in
 *   its name makes the principal per cluster: jobs/platform.ts workloadKsaNameOf).
 *
 * The Workload Identity binding and the KSA come with `bindWorkloads({ cluster, nodePool })`, once the cluster and a
 * node pool exist: the identity pool `<project>.svc.id.goog` appears with the first Workload Identity cluster, and the
 * KSA needs the API server. Both are created with those dependencies (props, not assignments afterwards).
 *
 * Beside it, a second KSA `<cluster>-workloads-verdict` (jobs/platform.ts verdictKsaNameOf) that a rehearsal's verdict
 * writer runs as (jobs/rehearsal-record.ts verdictWriter), bound by Workload Identity to its own GSA `<cluster>-gke-vw-sa`
 * (verdictServiceAccount), which may write only the bucket's `*.rehearsal.json` objects (TrainingBucket
 * `verdictWriter`, an IAM condition) and read the HF token it mounts to redact it (HfTokenSecret `verdictReader`), and the only
 * subject of a Role `<verdict ksa>-pod-logs` in the same namespace: `get,list` on pods and `get` on pods/log
 * (jobs/rehearsal-record.ts VERDICT_WRITER_RBAC_RULES), what the writer needs to put the failed step's last log lines
 * into its record. Nothing else: no secrets, no other namespace, no write. The pipeline steps (users' reward code
 * included) keep running as the workload KSA, which is bound to no Role here.
 */

/** What the workload bindings wait for. */
export interface WorkloadBindingProps {
  /** The Workload Identity cluster: the identity pool exists once it does. */
  readonly cluster: ITerraformDependable;
  /** A node pool: the API server serves the KSA once one exists. */
  readonly nodePool: ITerraformDependable;
  /** The pipelines' namespace where infra creates it (any but `default`): the KSAs and the Role go in after it. @default - none: the namespace exists (`default`) */
  readonly namespace?: ITerraformDependable;
}
/** What an object of the pipelines' namespace waits for: a node pool (the API server), and the namespace where infra creates it. */
function inNamespace(props: WorkloadBindingProps): ITerraformDependable[] {
  return [props.nodePool, ...(props.namespace ? [props.namespace] : [])];
}

/** What bindWorkloads creates. */
export interface WorkloadBindings {
  readonly workloadIdentityBinding: ServiceAccountIamMember;
  readonly kubernetesServiceAccount: ServiceAccountV1;
  /** The verdict writer's KSA and its Workload Identity binding (to the verdict GSA, `<cluster>-gke-vw-sa`). */
  readonly verdictIdentityBinding: ServiceAccountIamMember;
  readonly verdictServiceAccount: ServiceAccountV1;
  /** The verdict writer's pod and log reads in its namespace, and their binding to its KSA alone. */
  readonly podLogsRole: RoleV1;
  readonly podLogsBinding: RoleBindingV1;
}

/** Name of the Role that lets the verdict writer's KSA read pods and their logs in its namespace. */
export function podLogsRoleName(serviceAccountName: string): string {
  return `${serviceAccountName}-pod-logs`;
}

export class Identity extends Construct {
  public readonly nodeServiceAccount: ServiceAccount;
  public readonly workloadServiceAccount: ServiceAccount;
  /** The verdict writer's GSA `<cluster>-gke-vw-sa`: no project role; the bucket and the secret grant it their part. */
  public readonly verdictServiceAccount: ServiceAccount;
  private readonly platform: Platform;
  private bindings?: WorkloadBindings;

  constructor(scope: Construct, id: string, props: IdentityProps) {
    super(scope, id);
    const { platform } = props;
    this.platform = platform;
    this.nodeServiceAccount = new ServiceAccount(this, 'node-sa', {
      accountId: platform.nodeGsaId,
      displayName: `GKE nodes of ${platform.clusterName}`,
    });
    for (const role of NODE_ROLES) {
      new ProjectIamMember(this, `node-sa-${role.replace('roles/', '').replace(/\./g, '-')}`, {
        project: platform.project,
        role,
        member: this.nodeServiceAccount.member,
      });
    }
    this.workloadServiceAccount = new ServiceAccount(this, 'workload-sa', {
      accountId: platform.workloadGsaId,
      displayName: `Post-training workloads on ${platform.clusterName}`,
    });
    this.verdictServiceAccount = new ServiceAccount(this, 'verdict-sa', {
      accountId: platform.verdictGsaId,
      displayName: `Rehearsal verdict writer on ${platform.clusterName}`,
    });
  }

  /**
   * The Workload Identity binding (after the cluster) and the KSA pods run as (after a node pool), once. Their ids are
   * `cluster-workload-identity` and `cluster-ksa`: the KSA carries the cluster since this version, and the ones of the
   * version before (`workload-identity`, `ksa`: the per-project principal) are forgotten, not destroyed
   * (LEGACY_FORGOTTEN_ADDRESSES), so pipelines deployed before keep their identity until they are deployed again.
   */
  bindWorkloads(props: WorkloadBindingProps): WorkloadBindings {
    if (this.bindings) throw new Error(`${this.node.path}: bindWorkloads was already called`);
    const platform = this.platform;
    this.bindings = {
      workloadIdentityBinding: this.actsAs(this.workloadServiceAccount, 'cluster-workload-identity', platform.serviceAccountName, props.cluster),
      kubernetesServiceAccount: this.ksaActingAs(this.workloadServiceAccount, 'cluster-ksa', platform.serviceAccountName, inNamespace(props)),
      ...this.verdictWriter(props),
    };
    return this.bindings;
  }

  /** Lets the KSA `name` of the pipelines' namespace act as `gsa` (Workload Identity), once the cluster exists. */
  private actsAs(gsa: ServiceAccount, id: string, name: string, cluster: ITerraformDependable): ServiceAccountIamMember {
    return new ServiceAccountIamMember(this, id, {
      serviceAccountId: gsa.name,
      role: 'roles/iam.workloadIdentityUser',
      member: workloadIdentityMember(this.platform.project, this.platform.namespace, name),
      dependsOn: [cluster],
    });
  }

  /** A KSA in the pipelines' namespace that acts as `gsa` (Workload Identity annotation), after a node pool. */
  private ksaActingAs(gsa: ServiceAccount, id: string, name: string, after: ITerraformDependable[]): ServiceAccountV1 {
    return new ServiceAccountV1(this, id, {
      metadata: { name, namespace: this.platform.namespace, annotations: { 'iam.gke.io/gcp-service-account': gsa.email } },
      dependsOn: after,
    });
  }

  /**
   * The verdict writer's KSA (`cluster-verdict-ksa`), its Workload Identity binding to the workload GSA
   * (`cluster-verdict-workload-identity`), and the Role and RoleBinding of its pod and log reads
   * (`cluster-verdict-pod-logs`, `cluster-verdict-pod-logs-binding`), bound to it alone.
   */
  private verdictWriter(props: WorkloadBindingProps): Pick<WorkloadBindings, 'verdictIdentityBinding' | 'verdictServiceAccount' | 'podLogsRole' | 'podLogsBinding'> {
    const { namespace, verdictServiceAccountName } = this.platform;
    const verdictIdentityBinding = this.actsAs(this.verdictServiceAccount, 'cluster-verdict-workload-identity', verdictServiceAccountName, props.cluster);
    const verdictServiceAccount = this.ksaActingAs(this.verdictServiceAccount, 'cluster-verdict-ksa', verdictServiceAccountName, inNamespace(props));
    const name = podLogsRoleName(verdictServiceAccountName);
    const podLogsRole = new RoleV1(this, 'cluster-verdict-pod-logs', {
      metadata: { name, namespace },
      rule: VERDICT_WRITER_RBAC_RULES.map((r) => ({ apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs] })),
      dependsOn: inNamespace(props),
    });
    const podLogsBinding = new RoleBindingV1(this, 'cluster-verdict-pod-logs-binding', {
      metadata: { name, namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: podLogsRole.metadata.name },
      subject: [{ kind: 'ServiceAccount', name: verdictServiceAccountName, namespace }],
    });
    return { verdictIdentityBinding, verdictServiceAccount, podLogsRole, podLogsBinding };
  }
}
