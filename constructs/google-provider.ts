import { stringToHclTerraform, stringToTerraform, TerraformProvider } from 'cdktf';
import { Construct } from 'constructs';
import { GOOGLE_GENERATOR_METADATA } from './cluster-data';

/** The provider settings every stack of this program sets: the deployment's project and region. */
export interface GoogleProviderProps {
  readonly project: string;
  readonly region: string;
}

/**
 * Terraform's `provider "google"` (hashicorp/google 6.50.0) with the two settings the stacks set, `project` and
 * `region`, and its `required_providers` entry (`google`, 6.50.0).
 *
 * Written against cdktf's TerraformProvider rather than constructed from `@cdktf/provider-google/lib/provider` on
 * purpose: the generated class (585 KB) writes all ~190 provider settings (every `*_custom_endpoint`) into each stack's
 * provider block, unset, for cdktf to resolve three times per synth and drop, in every stack. The output is the
 * generated class's: `__tests__/constructs/google-provider.test.ts` synthesizes both, JSON and HCL, and
 * `__tests__/main.test.ts` checks a synth never loads the generated module.
 */
export class GoogleProvider extends TerraformProvider {
  public static readonly tfResourceType = 'google';

  constructor(scope: Construct, id: string, private readonly props: GoogleProviderProps) {
    super(scope, id, {
      terraformResourceType: GoogleProvider.tfResourceType,
      terraformGeneratorMetadata: GOOGLE_GENERATOR_METADATA,
      terraformProviderSource: 'google',
    });
  }

  protected synthesizeAttributes(): Record<string, unknown> {
    return { project: stringToTerraform(this.props.project), region: stringToTerraform(this.props.region) };
  }

  protected synthesizeHclAttributes(): Record<string, unknown> {
    const attr = (value: string) => ({ value: stringToHclTerraform(value), isBlock: false, type: 'simple', storageClassType: 'string' });
    return { project: attr(this.props.project), region: attr(this.props.region) };
  }
}
