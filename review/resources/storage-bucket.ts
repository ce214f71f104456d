/** `google_storage_bucket`: name, location, uniform access, public access prevention, force_destroy. */
import { bool, resolveRefs, str } from '../values';
import type { ResourceDescriber } from './types';

export interface Bucket {
  readonly stack: string;
  readonly address: string;
  readonly name: string;
  readonly location?: string;
  readonly uniformAccess: boolean;
  readonly publicAccessPrevention?: string;
  readonly forceDestroy: boolean;
}

export const storageBucket: ResourceDescriber = {
  types: ['google_storage_bucket'],
  extract: (r, { stack, json }) => ({
    buckets: [
      {
        stack,
        address: r.address,
        name: resolveRefs(str(r.attrs.name) ?? r.name, json),
        location: str(r.attrs.location),
        uniformAccess: bool(r.attrs.uniform_bucket_level_access),
        publicAccessPrevention: str(r.attrs.public_access_prevention),
        forceDestroy: bool(r.attrs.force_destroy),
      },
    ],
  }),
  describe: ({ b, a, verb }) => {
    const bucket = a?.buckets[0] ?? b?.buckets[0];
    return bucket && verb ? [`bucket ${bucket.name} ${verb}`] : undefined;
  },
};
