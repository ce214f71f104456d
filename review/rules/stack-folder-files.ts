import { oneLine } from '../plan';
import { finding, Rule } from './types';

/**
 * What may be in a stack folder (`cdktf.out/stacks/<stack>`): what synth writes (`cdk.tf.json`, `assets/`) and what
 * Terraform writes there itself (`.terraform/`, `.terraform.lock.hcl`, a local backend's `*.tfstate` and its backup
 * and lock info, the saved `plan`). cdktf-cli 0.21 removes only orphaned stack folders before a synth, so anything
 * else survives it (a committed file, a file left by an earlier run).
 */
const WRITTEN = [/^cdk\.tf\.json$/, /^assets\/$/, /^\.terraform\/$/, /^\.terraform\.lock\.hcl$/, /\.tfstate(\.backup)?$/, /^\.terraform\.tfstate\.lock\.info$/, /^plan$/];

/**
 * The files Terraform 1.11.4 reads from its working directory besides the stack (internal/configs/parser_config_dir.go:
 * every `*.tf` and `*.tf.json`, `*_override.tf[.json]` merged over them; internal/command/meta.go: `terraform.tfvars[.json]`
 * and `*.auto.tfvars[.json]` as variable values).
 */
const LOADED = /(\.tf|\.tf\.json|\.tfvars|\.tfvars\.json)$/;

/**
 * A file in a stack folder that synth did not write: Terraform loads configuration, overrides and variable values
 * from the whole folder, so the plan and the apply run more than the review read (a `zz_override.tf.json` with a
 * local-exec provisioner ran at apply: __tests__/review/stack-folder.test.ts, real Terraform 1.11.4).
 */
export const stackFolderFiles: Rule = {
  id: 'stack-folder-files',
  summary: 'a stack folder holds a file synth did not write (an override, a .tf, a .tfvars Terraform loads)',
  check: ({ texts }) =>
    texts.flatMap((t) =>
      (t.files ?? []).filter((f) => !WRITTEN.some((w) => w.test(f))).map((f) => {
        const name = oneLine(f, 80);
        const loaded = LOADED.test(f)
          ? /override\.tf(\.json)?$/.test(f)
            ? 'Terraform merges this override over the synthesized stack when it plans and applies'
            : /tfvars(\.json)?$/.test(f) ? 'Terraform reads variable values from it' : 'Terraform loads it as configuration beside cdk.tf.json'
          : 'synth did not write it';
        return finding('stack-folder-files', 'error', { stack: t.stack, address: `stacks/${t.stack}/${name}` },
          `${name} is in the stack folder of ${t.stack}: ${loaded}, and the review did not read it`,
          `delete it and synthesize into a clean folder (rm -rf cdktf.out; npm run synth); never commit files under cdktf.out/`);
      }),
    ),
};
