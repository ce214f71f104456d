import type { ProjectIamCustomRole } from '@cdktf/provider-google/lib/project-iam-custom-role';
import { StorageBucket } from '@cdktf/provider-google/lib/storage-bucket';
import { StorageBucketIamMember } from '@cdktf/provider-google/lib/storage-bucket-iam-member';
import { Construct } from 'constructs';
import { REHEARSAL_RECORD_SUFFIX } from '../jobs/rehearsal-record';
import { BUCKET_OBJECT_PERMISSIONS, BucketAccess, bucketObjectsRoleId, DEFAULT_BUCKET_ACCESS, DEFAULT_SCRATCH_EXPIRY_DAYS, DEFAULT_SOFT_DELETE_DAYS, isValidSoftDeleteDays } from '../jobs/platform';

export interface TrainingBucketProps {
  readonly name: string;
  readonly location: string;
  /** Member (`serviceAccount:...`) that reads and writes checkpoints: gets the `access` roles on this bucket only. */
  readonly writer: string;
  /** What `writer` and `hostNetworkWriter` may do on the bucket (jobs/platform.ts BUCKET_ACCESS_LEVELS). @default DEFAULT_BUCKET_ACCESS ('admin') */
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
  /**
   * Member that writes the rehearsal verdict records (the verdict writer's GSA): roles/storage.objectUser on this
   * bucket under an IAM condition that admits only objects named `*<REHEARSAL_RECORD_SUFFIX>` (verdictRecordCondition).
   * @default - none
   */
  readonly verdictWriter?: string;
}

/**
 * The IAM condition of the verdict writer's grant: objects of this bucket whose name ends in the record suffix.
 * Cloud Storage evaluates object-level conditions on `resource.name` =
 * `projects/_/buckets/<bucket>/objects/<object>` (Cloud Storage "IAM Conditions"; the client-library sample
 * storage-add-bucket-conditional-iam-binding sets a `resource.name.startsWith(...)` condition), with uniform
 * bucket-level access on, as this bucket has. The records sit beside each export (`<model>/hf-trained/<run>/<key>.rehearsal.json`:
 * jobs/rehearsal-record.ts rehearsalRecordPath), one per model, so the suffix, not one prefix, is what names them all;
 * bucket-level calls (list) do not match an object name and are refused.
 */
export function verdictRecordCondition(bucket: string): { title: string; description: string; expression: string } {
  return {
    title: 'rehearsal-records-only',
    description: `Only objects named *${REHEARSAL_RECORD_SUFFIX} in ${bucket}`,
    expression: `resource.name.startsWith(${JSON.stringify(`projects/_/buckets/${bucket}/objects/`)}) && resource.name.endsWith(${JSON.stringify(REHEARSAL_RECORD_SUFFIX)})`,
  };
}

/**
 * The checkpoint bucket: uniform access, public access prevention enforced, scratch prefix expiry, and the `access`
 * role (roles/storage.admin, or the objects-only custom role) for the workload identity and for the identity
 * host-network pods act as, granted on the bucket (not the project).
 */
export class TrainingBucket extends Construct {
  public readonly bucket: StorageBucket;
  /** The custom role of the `objects` access setting. @default - none (access 'admin': roles/storage.admin) */
  public readonly objectsRole?: ProjectIamCustomRole;

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
    // `objects`: a project custom role with exactly BUCKET_OBJECT_PERMISSIONS (the provider undeletes a soft-deleted role
    // of the same id on create: v6.50.0 resourcemanager/resource_google_project_iam_custom_role.go).
    if ((props.access ?? DEFAULT_BUCKET_ACCESS) === 'objects') {
      // Loaded here, not on import: only the `objects` access setting loads this provider module.
      const { ProjectIamCustomRole } = require('@cdktf/provider-google/lib/project-iam-custom-role') as typeof import('@cdktf/provider-google/lib/project-iam-custom-role');
      this.objectsRole = new ProjectIamCustomRole(this, 'objects-role', {
        roleId: bucketObjectsRoleId(props.name),
        title: `Objects of gs://${props.name}`,
        description: 'Read, write and delete the checkpoint bucket\'s objects and read the bucket; nothing that changes the bucket',
        permissions: [...BUCKET_OBJECT_PERMISSIONS],
      });
    }
    const role = this.objectsRole?.name ?? 'roles/storage.admin';
    // The ids `writer` / `host-network-writer` are the Terraform addresses of existing deployments.
    new StorageBucketIamMember(this, 'writer', { bucket: this.bucket.name, role, member: props.writer });
    if (props.hostNetworkWriter) {
      new StorageBucketIamMember(this, 'host-network-writer', { bucket: this.bucket.name, role, member: props.hostNetworkWriter });
    }
    if (props.verdictWriter) {
      // objectUser: create, and delete for the overwrite of a re-run's record (an overwrite needs storage.objects.delete).
      new StorageBucketIamMember(this, 'verdict-writer', {
        bucket: this.bucket.name,
        role: 'roles/storage.objectUser',
        member: props.verdictWriter,
        condition: verdictRecordCondition(props.name),
      });
    }
  }

  /** `gs://<name>`. */
  get url(): string {
    return `gs://${this.bucket.name}`;
  }
}
