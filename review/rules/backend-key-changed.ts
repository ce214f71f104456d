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
 * again (and collides with the running ones), while the old state keeps the real ones. So it is an error until the state
 * has moved: a saved plan of the stack (`--plan`) that finds resources already in state (anything but creates) shows it
 * has, and the finding is then a note. The move is a command (`npm run deploy -- <stack> --migrate-state`,
 * stacks/state-migration.ts; docs/operations.md "Upgrading to per-cluster identities and state keys").
 */
export const backendKeyChanged: Rule = {
  id: 'backend-key-changed',
  summary: "against --base, a stack's Terraform backend or state key changes: an error until its state has moved (a plan of it finds its resources)",
  check: ({ diffs, plans }) =>
    (diffs ?? [])
      .filter((s) => s.backend)
      .map((s) => {
        const plan = plans.find((p) => p.stack === s.stack && !p.errored);
        const found = plan ? plan.counts.update + plan.counts.replace + plan.counts.delete + plan.counts['no-op'] + plan.counts.forget : 0;
        return finding('backend-key-changed', found > 0 ? 'note' : 'error', { stack: s.stack, address: 'terraform.backend' },
          `the state of ${s.stack} moves from ${stateLocation(s.backend!.before)} to ${stateLocation(s.backend!.after)}; ` +
            (found > 0 ? `the plan of ${s.stack} finds ${found} resources there: it has moved` : 'a plan that finds no state there creates every resource again'),
          `move the state before the first plan of this change: npm run deploy -- ${s.stack} --migrate-state (with the environment's CONFIG_FILE; docs/operations.md, "Upgrading to per-cluster identities and state keys")`);
      }),
};
