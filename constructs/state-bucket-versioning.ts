import type { DataGoogleStorageBucket } from '@cdktf/provider-google/lib/data-google-storage-bucket';
import { Construct } from 'constructs';

export interface StateBucketVersioningProps {
  /** The Terraform state bucket (STATE_BUCKET), without `gs://`. */
  readonly bucket: string;
}

/** The command that turns object versioning on for a bucket. */
export function enableVersioningCommand(bucket: string): string {
  return `gcloud storage buckets update gs://${bucket} --versioning`;
}

/**
 * A plan-time check that the Terraform state bucket keeps object versions: without them a deleted or clobbered
 * state file is gone, and the next deploy starts from empty state next to live resources. A
 * `data "google_storage_bucket"` (hashicorp/google 6.50: the data source carries the resource's `versioning`
 * block) with a postcondition that fails `cdktf diff`/`deploy` before any change and says how to turn it on.
 * Reading it needs `storage.buckets.get` on the state bucket (docs/ci.md, "CI identities").
 */
export class StateBucketVersioning extends Construct {
  public readonly bucket: DataGoogleStorageBucket;

  constructor(scope: Construct, id: string, props: StateBucketVersioningProps) {
    super(scope, id);
    // Loaded here, not on import: only a deployment with a state bucket loads this provider module.
    const { DataGoogleStorageBucket } = require('@cdktf/provider-google/lib/data-google-storage-bucket') as typeof import('@cdktf/provider-google/lib/data-google-storage-bucket');
    this.bucket = new DataGoogleStorageBucket(this, 'bucket', {
      name: props.bucket,
      lifecycle: {
        postcondition: [
          {
            // try(): versioning is an empty list on a bucket that never had it configured.
            condition: '${try(self.versioning[0].enabled, false)}',
            errorMessage:
              `The Terraform state bucket gs://${props.bucket} (STATE_BUCKET) does not keep object versions, so a ` +
              `deleted or overwritten state file could not be recovered. Turn versioning on with: ` +
              `${enableVersioningCommand(props.bucket)}`,
          },
        ],
      },
    });
  }
}
