/**
 * A fresh project: nothing is created before the API it calls is enabled. Terraform creates a resource as soon as
 * everything it depends on exists, so a service account whose create does not depend on iam.googleapis.com races the
 * enablement and fails with "API has not been used in project" (hashicorp/terraform-provider-google #6101, #11435).
 * Enabling APIs itself needs Cloud Resource Manager and Service Usage, which the user turns on once (README, Prerequisites).
 */
import * as fs from 'fs';
import * as path from 'path';
import { APIS_OF_DATA_SOURCE, APIS_OF_RESOURCE, PREREQUISITE_APIS } from '../../constructs/project-apis';
import { allConfigurations, Obj } from './synthesized';

describe.each(allConfigurations())('every google resource waits for its APIs (%s)', (_name, synth) => {
  const res: Record<string, Record<string, Obj>> = synth.infra.resource;
  const serviceAddress = Object.fromEntries(
    Object.entries(res.google_project_service).map(([name, s]) => [s.service, `google_project_service.${name}`]),
  );
  const cases = Object.entries(res)
    .filter(([type]) => type.startsWith('google_') && type !== 'google_project_service')
    .flatMap(([type, byName]) => Object.entries(byName).map(([name, r]) => [`${type}.${name}`, type, r] as const));

  test.each(cases)('%s', (_address, type, r) => {
    const apis = APIS_OF_RESOURCE[type];
    expect(apis).toBeDefined();
    for (const api of apis) expect(r.depends_on ?? []).toContain(serviceAddress[api]);
  });

  test('every API is enabled once and never disabled on destroy', () => {
    for (const s of Object.values(res.google_project_service)) expect(s.disable_on_destroy).toBe(false);
    expect(Object.keys(serviceAddress).sort()).toEqual(
      [...new Set([...Object.values(APIS_OF_RESOURCE), ...Object.values(APIS_OF_DATA_SOURCE)].flat())].sort(),
    );
  });
});

test('the README gives the one command that enables what Terraform cannot enable itself, the docs the role node pools need', () => {
  const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
  expect(readme).toContain(`gcloud services enable ${PREREQUISITE_APIS.join(' ')} --project="$PROJECT"`);
  expect(readme).toContain('gke-gcloud-auth-plugin');
  const prerequisites = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'configuration.md'), 'utf8').split('## Project prerequisites')[1];
  expect(prerequisites).toContain('roles/iam.serviceAccountUser');
});
