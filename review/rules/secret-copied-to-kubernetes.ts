import { oneLine } from '../plan';
import { isObj } from '../values';
import { liveChanges } from './plan-facts';
import { finding, Rule } from './types';

/**
 * A secret copied into a Kubernetes Secret: a SecretProviderClass with `spec.secretObjects` (secrets-store-csi-driver
 * v1.6.0 syncs each mounted secret into a Secret of the namespace while a pod mounts it), or a Secret written by
 * Terraform (`kubernetes_secret[_v1]`, a `kubernetes_manifest` of kind Secret: its value is in state and plan). The
 * design keeps the HF token a mounted file only: a Secret is readable by whoever may get Secrets in the namespace and
 * by env references of any pod there.
 */
export const secretCopiedToKubernetes: Rule = {
  id: 'secret-copied-to-kubernetes',
  summary: 'a secret is copied into a Kubernetes Secret (SecretProviderClass secretObjects, a Secret in Terraform)',
  check: ({ plans }) =>
    liveChanges(plans).flatMap(({ plan, c }) => {
      if (c.action === 'delete' || c.action === 'forget') return [];
      const where = { stack: plan.stack, address: c.address };
      if (/^kubernetes_secret(_v1)?$/.test(c.type)) {
        return [finding('secret-copied-to-kubernetes', 'error', where, 'a Kubernetes Secret is written by Terraform: its value is in the plan and the state, and readable by whoever may get Secrets in its namespace', 'mount the secret from Secret Manager (SecretProviderClass, no secretObjects) instead')];
      }
      const m = isObj(c.after) ? c.after.manifest : undefined;
      if (c.type !== 'kubernetes_manifest' || !isObj(m)) return [];
      if (m.kind === 'Secret') {
        return [finding('secret-copied-to-kubernetes', 'error', where, `Secret ${oneLine(String(isObj(m.metadata) ? m.metadata.name : '?'), 80)} is written by Terraform: its value is in the plan and the state`, 'mount the secret from Secret Manager instead')];
      }
      const objects = m.kind === 'SecretProviderClass' && isObj(m.spec) && Array.isArray(m.spec.secretObjects) ? m.spec.secretObjects.filter(isObj) : [];
      if (!objects.length) return [];
      const names = objects.map((o) => oneLine(String(o.secretName ?? '?'), 60)).join(', ');
      return [finding('secret-copied-to-kubernetes', 'error', where,
        `SecretProviderClass ${oneLine(String(isObj(m.metadata) ? m.metadata.name : '?'), 80)} copies its secrets into Kubernetes Secret(s) ${names} (spec.secretObjects): the token leaves Secret Manager for any account that may read Secrets or start a pod in the namespace`,
        'remove spec.secretObjects: the pods read the token from the mounted file')];
    }),
};
