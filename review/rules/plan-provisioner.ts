import { finding, Rule } from './types';

/**
 * A provisioner anywhere in what Terraform plans: the plan's configuration (every file of the stack folder, an
 * `*_override.tf.json` too: Terraform 1.11.4 merges override files into the configuration it plans and shows) or the
 * synthesized stack. A `local-exec` runs a command on the machine that applies, with the deploy identity; this
 * project declares none, so any is an error (tested with real Terraform 1.11.4: __tests__/review/stack-folder.test.ts).
 */
export const planProvisioner: Rule = {
  id: 'plan-provisioner',
  summary: 'a provisioner (local-exec, remote-exec, file) is in a plan or a synthesized stack: it runs commands at apply',
  check: ({ plans, texts }) => [
    ...plans.flatMap((p) =>
      (p.provisioners ?? []).map((x) =>
        finding('plan-provisioner', 'error', { stack: p.stack, address: x.address },
          `${x.address} has a ${x.type} provisioner in the configuration Terraform planned: it runs a command at apply, with the deploy identity, and no review of resources shows what it does`,
          'remove it; if it is not in the synthesized stack, a file in the stack folder (an *_override.tf or .tf.json, a second .tf) added it: delete that file'),
      ),
    ),
    ...texts.flatMap((t) => synthesizedProvisioners(t.json).map((address) =>
      finding('plan-provisioner', 'error', { stack: t.stack, address },
        `${address} declares a provisioner in the synthesized stack: it runs a command at apply`, 'remove the provisioner from the construct'))),
  ],
};

function synthesizedProvisioners(json: unknown): string[] {
  const resources = typeof json === 'object' && json !== null ? (json as { resource?: Record<string, Record<string, unknown>> }).resource : undefined;
  return Object.entries(resources ?? {}).flatMap(([type, byName]) =>
    Object.entries(typeof byName === 'object' && byName !== null ? byName : {})
      .filter(([, r]) => typeof r === 'object' && r !== null && 'provisioner' in (r as object))
      .map(([name]) => `${type}.${name}`));
}
