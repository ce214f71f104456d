import { finding, Rule } from './types';

export const bucketPublicAccess: Rule = {
  id: 'bucket-public-access',
  summary: 'a bucket does not enforce public access prevention',
  check: ({ models }) =>
    models
      .flatMap((m) => m.buckets)
      .filter((b) => b.publicAccessPrevention !== 'enforced')
      .map((b) =>
        finding('bucket-public-access', 'note', b, `bucket ${b.name}: public_access_prevention is ${b.publicAccessPrevention ?? 'inherited'}, not enforced`,
          'set public_access_prevention = "enforced"'),
      ),
};
