import { SecretManagerSecret } from '@cdktf/provider-google/lib/secret-manager-secret';
import { SecretManagerSecretIamMember } from '@cdktf/provider-google/lib/secret-manager-secret-iam-member';
import { Construct } from 'constructs';

export interface HfTokenSecretProps {
  readonly secretId: string;
  /**
   * The one location the secret's data is stored in (the deployment's region). User-managed replication there, not
   * automatic: `constraints/gcp.resourceLocations` refuses an automatic secret unless `global` is allowed (Secret
   * Manager "Choosing a replication policy"), and an organisation that limits locations rarely allows it. Replication
   * is ForceNew (provider v6.50.0 secretmanager/resource_secret_manager_secret.go): changing it replaces the secret.
   */
  readonly location: string;
  /** Member that reads the token (the workload GSA): gets secretAccessor on this secret only. */
  readonly reader: string;
  /** The verdict writer's GSA, which mounts the token to redact it: secretAccessor on this secret only (`verdict-reader`). @default - none */
  readonly verdictReader?: string;
}

/**
 * The Secret Manager secret for the Hugging Face token, created WITHOUT a version: the value is added
 * with one `gcloud secrets versions add` (see `secretCommand` in jobs/secrets.ts) and never passes through Terraform, so it is
 * in no config, state, plan or manifest.
 */
export class HfTokenSecret extends Construct {
  public readonly secret: SecretManagerSecret;

  constructor(scope: Construct, id: string, props: HfTokenSecretProps) {
    super(scope, id);
    // `cluster-secret`: the secret id carries the cluster since this version (LEGACY_FORGOTTEN_ADDRESSES says why the id moved).
    this.secret = new SecretManagerSecret(this, 'cluster-secret', {
      secretId: props.secretId,
      replication: { userManaged: { replicas: [{ location: props.location }] } },
      labels: { purpose: 'hugging-face-token' },
    });
    new SecretManagerSecretIamMember(this, 'cluster-reader', {
      secretId: this.secret.id,
      role: 'roles/secretmanager.secretAccessor',
      member: props.reader,
    });
    if (props.verdictReader) {
      new SecretManagerSecretIamMember(this, 'verdict-reader', { secretId: this.secret.id, role: 'roles/secretmanager.secretAccessor', member: props.verdictReader });
    }
  }
}

/**
 * Terraform addresses of the version before identities carried the cluster, in `infra`: the secret `hf-token` and its
 * reader binding, the KSA `workload-identity-k8s-sa` and its Workload Identity binding (names from cdktf's logical ids of
 * `hf-token/secret`, `hf-token/reader`, `identity/ksa`, `identity/workload-identity`). The new ones live at new
 * addresses, and these get `removed { lifecycle { destroy = false } }` blocks (Terraform >= 1.7): the upgrade forgets
 * them instead of destroying them, so a pipeline deployed before keeps mounting `hf-token` as its old KSA until it is
 * deployed again (docs/operations.md "Upgrading to per-cluster identities" gives the clean-up). A deployment that never
 * had them plans nothing for the blocks.
 */
export const LEGACY_FORGOTTEN_ADDRESSES: readonly string[] = [
  'google_secret_manager_secret.hf-token_secret_06522DAB',
  'google_secret_manager_secret_iam_member.hf-token_reader_E19E4084',
  'kubernetes_service_account_v1.identity_ksa_A3B45690',
  'google_service_account_iam_member.identity_workload-identity_DA9A374D',
];
