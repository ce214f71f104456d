import { TerraformResource } from 'cdktf';
import { Construct } from 'constructs';

/**
 * A built-in `terraform_data` resource holding a hash: a change of the hash plans an update of this
 * resource, which `lifecycle.replace_triggered_by` turns into a replacement of whatever references it.
 *
 * Written against TerraformResource rather than cdktf's DataResource class on purpose: DataResource adds
 * a validation that runs `terraform version` in a child process for every instance at synth time
 * (~170 ms each here, and a failed synth on a machine without Terraform). Terraform >= 1.4 has the
 * resource; the README requires >= 1.5.
 */
export class SpecHash extends TerraformResource {
  public static readonly tfResourceType = 'terraform_data';

  constructor(scope: Construct, id: string, private readonly sha256: string) {
    super(scope, id, { terraformResourceType: SpecHash.tfResourceType });
  }

  /** Address for `replace_triggered_by` (a plain reference: Terraform rejects "${...}" there). */
  get address(): string {
    return `${SpecHash.tfResourceType}.${this.friendlyUniqueId}`;
  }

  protected synthesizeAttributes(): Record<string, unknown> {
    return { input: { sha256: this.sha256 } };
  }
}
