import { finding, Rule } from './types';

/** A data source that reads a secret's value puts it into state and every plan (the token must never be there). */
export const secretReadIntoState: Rule = {
  id: 'secret-read-into-state',
  summary: "a data source reads a secret's payload into Terraform state",
  check: ({ models }) =>
    models.flatMap((m) =>
      m.secretReadsIntoState.map((address) =>
        finding('secret-read-into-state', 'error', { stack: m.name, address },
          `${address} reads a secret's payload into Terraform state (secret_data)`,
          'check the version with fetch_secret_data = false (metadata only), or mount the secret in the pod instead'),
      ),
    ),
};
