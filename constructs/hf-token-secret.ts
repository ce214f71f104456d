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
    this.secret = new SecretManagerSecret(this, 'secret', {
      secretId: props.secretId,
      replication: { userManaged: { replicas: [{ location: props.location }] } },
      labels: { purpose: 'hugging-face-token' },
    });
    new SecretManagerSecretIamMember(this, 'reader', {
      secretId: this.secret.id,
      role: 'roles/secretmanager.secretAccessor',
      member: props.reader,
    });
  }
}
