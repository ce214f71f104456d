import { finding, Rule } from './types';

export const secretVersionPayload: Rule = {
  id: 'secret-version-payload',
  summary: 'a google_secret_manager_secret_version puts a secret payload into Terraform',
  check: ({ models }) =>
    models.flatMap((m) =>
      m.secretVersionsWithData.map((address) =>
        finding('secret-version-payload', 'error', { stack: m.name, address },
          `${address} puts a secret payload into Terraform (secret_data is stored in state and shown to anyone who can read plans)`,
          'drop the google_secret_manager_secret_version; add the version out of band with `gcloud secrets versions add`'),
      ),
    ),
};
