import { isObj } from '../values';
import { finding, Rule } from './types';

/** `local terraform.infra.tfstate` / `gcs gs://b/tpu-post-training/infra`: where a backend block keeps the state. */
export function stateLocation(backend: unknown): string {
  if (!isObj(backend)) return 'no backend (terraform.tfstate in the working directory)';
  const [[kind, settings] = ['?', {}]] = Object.entries(backend);
  const s = isObj(settings) ? settings : {};
  if (kind === 'local') return `local ${String(s.path ?? 'terraform.tfstate')}`;
  if (kind === 'gcs') return `gcs gs://${String(s.bucket ?? '?')}/${String(s.prefix ?? '')}`;
  return `${kind} ${JSON.stringify(s)}`;
}

/**
 * Against `--base`, a stack's backend or state key changes (stacks/backend.ts: the key carries project, cluster and
 * stack). Terraform then reads the state from the new place: left there empty, the next plan creates every resource
 * again (and collides with the running ones), while the old state keeps the real ones. The state must move first
 * (`terraform init -migrate-state`, docs/operations.md "Moving state to the per-cluster key").
 */
export const backendKeyChanged: Rule = {
  id: 'backend-key-changed',
  summary: "against --base, a stack's Terraform backend or state key changes: its state must move before the next plan",
  check: ({ diffs }) =>
    (diffs ?? [])
      .filter((s) => s.backend)
      .map((s) =>
        finding('backend-key-changed', 'warning', { stack: s.stack, address: 'terraform.backend' },
          `the state of ${s.stack} moves from ${stateLocation(s.backend!.before)} to ${stateLocation(s.backend!.after)}; a plan that finds no state there creates every resource again`,
          `move the state before the first deploy of this change: cd cdktf.out/stacks/${s.stack} && terraform init -migrate-state (docs/operations.md, "Moving state to the per-cluster key")`),
      ),
};
