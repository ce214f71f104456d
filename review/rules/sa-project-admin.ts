import { finding, Rule } from './types';

/** Roles that make a service account a project admin (CKV_GCP_42's `.*(admin|Admin|editor|owner)`). */
const ADMIN_ROLE = /(admin|Admin|editor|owner)/;

export const saProjectAdmin: Rule = {
  id: 'sa-project-admin',
  summary: 'a service account gets an admin, editor or owner role on the whole project (CKV_GCP_42)',
  check: ({ models }) =>
    models
      .flatMap((m) => m.grants)
      .filter((g) => g.scope === 'project' && g.member.startsWith('serviceAccount:') && !g.member.includes('.svc.id.goog[') && ADMIN_ROLE.test(g.role))
      .map((g) =>
        finding('sa-project-admin', 'error', g,
          `${g.member} gets ${g.role} on the whole project ${g.target} (CKV_GCP_42): it can act on every resource of that kind in the project`,
          'grant the role on the one resource that needs it (e.g. google_storage_bucket_iam_member on the bucket), ' +
            'or a narrower role such as roles/storage.objectUser'),
      ),
};
