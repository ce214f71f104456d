import { finding, Rule } from './types';

export const bucketAcls: Rule = {
  id: 'bucket-acls',
  summary: 'a bucket allows object ACLs (no uniform bucket-level access)',
  check: ({ models }) =>
    models
      .flatMap((m) => m.buckets)
      .filter((b) => !b.uniformAccess)
      .map((b) =>
        finding('bucket-acls', 'warning', b, `bucket ${b.name} allows object ACLs (uniform_bucket_level_access is not true)`,
          'set uniform_bucket_level_access = true so IAM is the only way in'),
      ),
};
