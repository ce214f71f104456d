import { ProjectIamMember } from '@cdktf/provider-google/lib/project-iam-member';
import { ServiceAccount } from '@cdktf/provider-google/lib/service-account';
import { ServiceAccountIamMember } from '@cdktf/provider-google/lib/service-account-iam-member';
import { ServiceAccountV1 } from '@cdktf/provider-kubernetes/lib/service-account-v1';
import { dependable, TerraformResource } from 'cdktf';
import { Construct } from 'constructs';
import { Platform } from '../jobs/platform';

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
 * The two Google service accounts and the Kubernetes service account pods run as.
 *
 * - node GSA `<cluster>-gke-np-sa`: every node pool's identity, with NODE_ROLES only.
 * - workload GSA `<cluster>-gke-wl-sa`: no project role at all; the bucket and the secret grant it
 *   access on themselves (see TrainingBucket, HfTokenSecret).
 * - KSA `workload-identity-k8s-sa` in the pipelines' namespace, bound to the workload GSA by Workload Identity.
 *
 * Call `afterCluster` once the cluster and a node pool exist: the identity pool `<project>.svc.id.goog`
 * appears with the first Workload Identity cluster, and the KSA needs the API server.
 */
export class Identity extends Construct {
  public readonly nodeServiceAccount: ServiceAccount;
  public readonly workloadServiceAccount: ServiceAccount;
  public readonly workloadIdentityBinding: ServiceAccountIamMember;
  public readonly kubernetesServiceAccount: ServiceAccountV1;

  constructor(scope: Construct, id: string, props: IdentityProps) {
    super(scope, id);
    const { platform } = props;
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
    this.workloadIdentityBinding = new ServiceAccountIamMember(this, 'workload-identity', {
      serviceAccountId: this.workloadServiceAccount.name,
      role: 'roles/iam.workloadIdentityUser',
      member: `serviceAccount:${platform.project}.svc.id.goog[${platform.namespace}/${platform.serviceAccountName}]`,
    });
    this.kubernetesServiceAccount = new ServiceAccountV1(this, 'ksa', {
      metadata: {
        name: platform.serviceAccountName,
        namespace: platform.namespace,
        annotations: { 'iam.gke.io/gcp-service-account': this.workloadServiceAccount.email },
      },
    });
  }

  /** Orders the Workload Identity binding after the cluster, and the KSA after a node pool. */
  afterCluster(cluster: TerraformResource, nodePool: TerraformResource): void {
    this.workloadIdentityBinding.dependsOn = [dependable(cluster)];
    this.kubernetesServiceAccount.dependsOn = [dependable(nodePool)];
  }
}
