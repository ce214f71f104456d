import { TerraformResource, TerraformResourceLifecycle } from 'cdktf';
import { Construct } from 'constructs';

/**
 * Terraform's built-in `terraform_data` resource (no provider): it stores `input` and returns it as `output`.
 *
 * Written against TerraformResource rather than cdktf's DataResource class on purpose: DataResource adds a validation
 * that runs `terraform version` in a child process for every instance at synth time (~170 ms each here, and a failed
 * synth on a machine without Terraform). Terraform >= 1.4 has the resource; the README requires >= 1.5.
 */
export class BuiltinData extends TerraformResource {
  public static readonly tfResourceType = 'terraform_data';

  constructor(scope: Construct, id: string, private readonly input: unknown, lifecycle?: TerraformResourceLifecycle) {
    super(scope, id, { terraformResourceType: BuiltinData.tfResourceType, lifecycle });
  }

  /** Address for `replace_triggered_by` and commands (a plain reference: Terraform rejects "${...}" there). */
  get address(): string {
    return `${BuiltinData.tfResourceType}.${this.friendlyUniqueId}`;
  }

  /** The stored value. */
  get output(): string {
    return this.getStringAttribute('output');
  }

  protected synthesizeAttributes(): Record<string, unknown> {
    return { input: this.input };
  }
}
