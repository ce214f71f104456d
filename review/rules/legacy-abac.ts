import { finding, Rule } from './types';

export const legacyAbac: Rule = {
  id: 'legacy-abac',
  summary: 'the cluster enables legacy ABAC (CKV_GCP_7)',
  check: ({ models }) =>
    models
      .flatMap((m) => m.controlPlanes)
      .filter((cp) => cp.legacyAbac)
      .map((cp) => finding('legacy-abac', 'error', cp, `cluster ${cp.name}: enable_legacy_abac is true (CKV_GCP_7)`, 'remove enable_legacy_abac; use RBAC')),
};
