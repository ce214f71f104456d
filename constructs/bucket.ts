import { StorageBucket } from '@cdktf/provider-google/lib/storage-bucket';
import { StorageBucketIamMember } from '@cdktf/provider-google/lib/storage-bucket-iam-member';
import { Construct } from 'constructs';
import { BUCKET_ACCESS_ROLES, BucketAccess, DEFAULT_BUCKET_ACCESS, DEFAULT_SCRATCH_EXPIRY_DAYS, DEFAULT_SOFT_DELETE_DAYS, isValidSoftDeleteDays } from '../jobs/platform';

export interface TrainingBucketProps {
  readonly name: string;
  readonly location: string;
  /** Member (`serviceAccount:...`) that reads and writes checkpoints: gets the `access` roles on this bucket only. */
  readonly writer: string;
  /** Roles of `writer` and `hostNetworkWriter` on the bucket (BUCKET_ACCESS_ROLES). @default DEFAULT_BUCKET_ACCESS ('admin') */
  readonly access?: BucketAccess;
  /** Prefix Pathways writes scratch data to; objects under it expire. */
  readonly scratchPrefix: string;
  /** Days after which scratch objects are deleted. @default DEFAULT_SCRATCH_EXPIRY_DAYS (7) */
  readonly scratchExpiryDays?: number;
  /** Let `terraform destroy` delete a bucket that still holds objects. @default false */
  readonly forceDestroy?: boolean;
  /**
   * Days GCS keeps a deleted or overwritten object restorable (and billed): 0 turns soft delete off, otherwise
   * 7 to 90 (GCS's range). Off by default for this bucket: it holds multi-hundred-GB checkpoints that runs
   * rewrite and users delete to free space, and GCS's own default (7 days) would keep billing every deleted one.
   * @default DEFAULT_SOFT_DELETE_DAYS (0)
   */
  readonly softDeleteDays?: number;
  /**
   * Member that host-network pods act as: gets the `access` roles on this bucket only, like `writer`. Workload
   * Identity does not apply to pods on the host network (TPU workers, the Pathways head: `hostNetwork: true` as
   * gcluster and xpk run them); they reach GCS as the node service account, and MaxText needs storage.buckets.get,
   * which roles/storage.objectAdmin alone lacks (a misleading "bucket not found"). @default - none
   */
  readonly hostNetworkWriter?: string;
}

/**
 * The checkpoint bucket: uniform access, public access prevention enforced, scratch prefix expiry, and the `access`
 * roles (BUCKET_ACCESS_ROLES) for the workload identity and for the identity host-network pods act as, granted on the
 * bucket (not the project).
 */
export class TrainingBucket extends Construct {
  public readonly bucket: StorageBucket;

  constructor(scope: Construct, id: string, props: TrainingBucketProps) {
    super(scope, id);
    const softDeleteDays = props.softDeleteDays ?? DEFAULT_SOFT_DELETE_DAYS;
    if (!isValidSoftDeleteDays(softDeleteDays)) {
      throw new Error(`softDeleteDays must be 0 (off) or a whole number of days from 7 to 90, got ${softDeleteDays}`);
    }
    this.bucket = new StorageBucket(this, 'bucket', {
      name: props.name,
      location: props.location,
      uniformBucketLevelAccess: true,
      publicAccessPrevention: 'enforced',
      forceDestroy: props.forceDestroy ?? false,
      softDeletePolicy: { retentionDurationSeconds: softDeleteDays * 86400 },
      lifecycleRule: [
        {
          action: { type: 'Delete' },
          condition: { age: props.scratchExpiryDays ?? DEFAULT_SCRATCH_EXPIRY_DAYS, matchesPrefix: [props.scratchPrefix] },
        },
      ],
    });
    // The first role keeps the ids `writer` / `host-network-writer` (the Terraform addresses of existing deployments).
    BUCKET_ACCESS_ROLES[props.access ?? DEFAULT_BUCKET_ACCESS].forEach((role, i) => {
      const suffix = i === 0 ? '' : `-${role.replace('roles/storage.', '').toLowerCase()}`;
      new StorageBucketIamMember(this, `writer${suffix}`, { bucket: this.bucket.name, role, member: props.writer });
      if (props.hostNetworkWriter) {
        new StorageBucketIamMember(this, `host-network-writer${suffix}`, { bucket: this.bucket.name, role, member: props.hostNetworkWriter });
      }
    });
  }

  /** `gs://<name>`. */
  get url(): string {
    return `gs://${this.bucket.name}`;
  }
}
