/**
 * `requireRehearsal: true`: the pipeline's plan lists the bucket's rehearsal proofs of this pipeline
 * (`google_storage_bucket_objects` with a match_glob: an empty list when none, never an error) and a postcondition fails
 * the plan unless the proof of exactly this combination is there (jobs/rehearsal.ts rehearsalProof), naming the command
 * that makes it; a proof of another combination is called stale. The `rehearsal` output says which, for the review.
 */
import { Construct } from 'constructs';
import { TerraformOutput } from 'cdktf';
import type { Precondition } from 'cdktf';
import { DataGoogleStorageBucketObjects } from '@cdktf/provider-google/lib/data-google-storage-bucket-objects';
import { REHEARSAL_OUTPUT, RehearsalProof } from '../jobs/rehearsal';


export interface RehearsalCheckProps {
  readonly proof: RehearsalProof;
  /** PlaceholderGuard.precondition: no API call while a placeholder is left. */
  readonly precondition: Precondition;
}

/** The Terraform expressions over the listed objects (`self` in the postcondition): found, and the verdict text. */
export function proofExpressions(proof: RehearsalProof, list: string): { found: string; verdict: string } {
  const found = `contains([for o in ${list} : o.name], ${JSON.stringify(proof.exact)})`;
  const stale =
    `a rehearsal of ${proof.pipeline} exists for another combination (another image, model, revision, method or file), ` +
    `not for this one (key ${proof.key})`;
  const none = `no passing rehearsal of ${proof.pipeline} for this combination (key ${proof.key})`;
  const verdict = `${found} ? "passed (key ${proof.key})" : length(${list}) > 0 ? "stale: ${stale}" : "none: ${none}"`;
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
        postcondition: [
          {
            condition: `\${${self.found}}`,
            errorMessage: `\${${self.verdict}}: pipelines.${proof.pipeline}.requireRehearsal refuses the deploy; run \`${proof.command}\`, wait for it to pass (npm run status -- rehearse-${proof.pipeline}), then deploy again.`,
          },
        ],
      },
    });
    const out = proofExpressions(proof, `data.google_storage_bucket_objects.${this.objects.friendlyUniqueId}.bucket_objects`);
    new TerraformOutput(this, REHEARSAL_OUTPUT, { value: `\${${out.verdict}}` }).overrideLogicalId(REHEARSAL_OUTPUT);
  }
}
