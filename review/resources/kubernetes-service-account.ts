/** `kubernetes_service_account(_v1)`: a Workload Identity annotation (`iam.gke.io/gcp-service-account`). */
import { block, isObj, resolveRefs, str } from '../values';
import type { ResourceDescriber } from './types';

export interface WorkloadIdentityBinding {
  readonly stack: string;
  readonly address: string;
  /** Google service account the Kubernetes service account acts as. */
  readonly gsa: string;
  /** `namespace/ksa` parsed from the member, or the raw member. */
  readonly ksa: string;
}

export const kubernetesServiceAccount: ResourceDescriber = {
  types: ['kubernetes_service_account', 'kubernetes_service_account_v1'],
  extract: (r, { stack, json }) => {
    const metadata = block(r.attrs.metadata) ?? {};
    const annotations = isObj(metadata.annotations) ? metadata.annotations : {};
    const gsa = str(annotations['iam.gke.io/gcp-service-account']);
    if (!gsa) return {};
    const ksa = `${resolveRefs(str(metadata.namespace) ?? 'default', json)}/${resolveRefs(str(metadata.name) ?? r.name, json)} (annotation)`;
    return { workloadIdentity: [{ stack, address: r.address, gsa: resolveRefs(gsa, json), ksa }] };
  },
};
