/**
 * Whether a passing rehearsal of exactly this combination exists, on every pipeline's plan: the plan lists the bucket's
 * rehearsal proofs of the pipeline (`google_storage_bucket_objects` with a match_glob, behind the placeholder guard's
 * precondition) and the `rehearsal` output says `passed (...)`, `stale: ...` or `none: ...` (jobs/rehearsal.ts
 * rehearsalProof). With `requireRehearsal: true` a postcondition also fails the plan unless the proof of exactly this
 * combination is there, naming the command that makes it.
 *
 * An empty match is an empty list, never an error: hashicorp/terraform-provider-google v6.50.0 (956f5109)
 * google/services/storage/data_source_google_storage_bucket_objects.go:117 reads `res["items"]`, and
 * `flattenDatasourceGoogleBucketObjectsList` (:137-140) returns an empty list when the response has no `items`; only a
 * failed request (no bucket, no `storage.objects.list` for the planner) fails the read (:113-115).
 */
import { Construct } from 'constructs';
import { TerraformOutput } from 'cdktf';
import type { Precondition } from 'cdktf';
import { DataGoogleStorageBucketObjects } from '@cdktf/provider-google/lib/data-google-storage-bucket-objects';
import { REHEARSAL_OUTPUT, RehearsalProof, rehearsalVerdictTexts } from '../jobs/rehearsal';

export interface RehearsalCheckProps {
  readonly proof: RehearsalProof;
  /** PlaceholderGuard.precondition: no API call while a placeholder is left. */
  readonly precondition: Precondition;
  /** `requireRehearsal: true`: the plan fails unless the proof is there. @default false: the output only says which */
  readonly required?: boolean;
}

/** The Terraform expressions over the listed objects (`self` in the postcondition): found, and the verdict text. */
export function proofExpressions(proof: RehearsalProof, list: string): { found: string; verdict: string } {
  const found = `contains([for o in ${list} : o.name], ${JSON.stringify(proof.exact)})`;
  const t = rehearsalVerdictTexts(proof);
  const verdict = `${found} ? ${JSON.stringify(t.passed)} : length(${list}) > 0 ? ${JSON.stringify(t.stale)} : ${JSON.stringify(t.none)}`;
  return { found, verdict };
}

export class RehearsalCheck extends Construct {
  public readonly objects: DataGoogleStorageBucketObjects;

  constructor(scope: Construct, id: string, props: RehearsalCheckProps) {
    super(scope, id);
    const { proof } = props;
    const self = proofExpressions(proof, 'self.bucket_objects');
    this.objects = new DataGoogleStorageBucketObjects(this, 'proofs', {
      bucket: proof.bucket,
      matchGlob: proof.glob,
      lifecycle: {
        precondition: [props.precondition],
        ...(props.required
          ? {
              postcondition: [
                {
                  condition: `\${${self.found}}`,
                  errorMessage: `\${${self.verdict}}: pipelines.${proof.pipeline}.requireRehearsal refuses the deploy; run \`${proof.command}\`, wait for it to pass (npm run status -- rehearse-${proof.pipeline}), then deploy again.`,
                },
              ],
            }
          : {}),
      },
    });
    const out = proofExpressions(proof, `data.google_storage_bucket_objects.${this.objects.friendlyUniqueId}.bucket_objects`);
    new TerraformOutput(this, REHEARSAL_OUTPUT, { value: `\${${out.verdict}}` }).overrideLogicalId(REHEARSAL_OUTPUT);
  }
}
