/**
 * `terraform_data`: a pipeline step's spec hash (constructs/jobset-step.ts). When it changes, `replace_triggered_by`
 * replaces every JobSet that references it, even when the JobSet's own manifest is unchanged (a later step after a
 * changed earlier one). For a conversion step the review says whether the replacement reuses the converted
 * checkpoint or converts again (kubernetes-manifest.ts `conversionOutcome`).
 */
import { block, isObj } from '../values';
import type { TerraformJson } from '../load';
import { conversionOutcome, JobSetStep, kubernetesManifest } from './kubernetes-manifest';
import type { ChangeContext, ResourceDescriber } from './types';

/** `kubernetes_manifest` names whose `replace_triggered_by` lists `terraform_data.<name>`. */
export function triggeredManifests(json: TerraformJson | undefined, dataName: string): string[] {
  const ref = `terraform_data.${dataName}`;
  return Object.entries(block(json?.resource?.kubernetes_manifest) ?? {})
    .filter(([, r]) => {
      const triggers = block(isObj(r) ? r.lifecycle : undefined)?.replace_triggered_by;
      return Array.isArray(triggers) && triggers.includes(ref);
    })
    .map(([name]) => name);
}

/** The JobSet step of one `kubernetes_manifest` of a stack. */
function stepOf(json: TerraformJson | undefined, manifest: string): JobSetStep | undefined {
  const attrs = block(json?.resource?.kubernetes_manifest)?.[manifest];
  if (!isObj(attrs) || !json) return undefined;
  const r = { address: `kubernetes_manifest.${manifest}`, type: 'kubernetes_manifest', name: manifest, attrs };
  return kubernetesManifest.extract(r, { stack: 'x', json }).jobsets?.[0];
}

function describe({ verb, name, context }: ChangeContext): string[] | undefined {
  if (verb) return undefined;
  return triggeredManifests(context?.after, name).flatMap((mname) => {
    const j = stepOf(context?.after, mname);
    if (!j) return [];
    const cost = j.tpuChips ? ` on ${j.tpuChips} chips${j.timeoutText ? ` (up to ${j.timeoutText})` : ''}` : '';
    const outcome = conversionOutcome(stepOf(context?.before, mname), j);
    return [`JobSet ${j.name} will be REPLACED (its spec or an earlier step changed): ${outcome ?? `re-runs ${j.kind}${cost}`}`];
  });
}

export const terraformData: ResourceDescriber = { types: ['terraform_data'], extract: () => ({}), describe };
