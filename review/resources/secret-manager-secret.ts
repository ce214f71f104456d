/** `google_secret_manager_secret` (the HF-token container) and `_secret_version` (a payload in Terraform). */
import { resolveRefs, str } from '../values';
import type { ResourceDescriber } from './types';

export interface SecretContainer {
  readonly stack: string;
  readonly address: string;
  readonly secretId: string;
}

export const secretManagerSecret: ResourceDescriber = {
  types: ['google_secret_manager_secret'],
  extract: (r, { stack, json }) => ({ secrets: [{ stack, address: r.address, secretId: resolveRefs(str(r.attrs.secret_id) ?? r.name, json) }] }),
};

export const secretManagerSecretVersion: ResourceDescriber = {
  types: ['google_secret_manager_secret_version'],
  extract: (r) => (r.attrs.secret_data !== undefined ? { secretVersionsWithData: [r.address] } : {}),
};
