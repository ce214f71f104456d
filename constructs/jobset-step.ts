/**
 * JobSetStep: one pipeline step as Terraform: the JobSet (`kubernetes_manifest`) that waits for the run to end,
 * a completion gate that fails the deploy when the run failed, and a spec hash that turns any spec change into a
 * replacement.
 *
 * How it works with hashicorp/kubernetes 2.38 (read in manifest/provider/{apply,waiter,datasource}.go):
 *
 * 1. Wait, for success AND failure. `wait { fields = { "status.terminalState" = "^(Completed|Failed)$" } }`: the
 *    provider polls the JobSet every second after the server-side apply and returns when the regex matches, so the
 *    create returns as soon as the JobSet ends either way (JobSet v0.12 sets `status.terminalState`). A `condition
 *    { type = "Completed" }` wait would instead hang on a failed run until `timeouts.create`.
 *
 * 2. Fail promptly with the name and the logs command. A `data "kubernetes_resource"` reads the JobSet after the
 *    manifest (depends_on) and carries a `postcondition` `try(self.object.status.terminalState, "") == "Completed"`
 *    whose error message names the JobSet and prints `kubectl logs` / `kubectl get jobset`. The next step's
 *    manifest depends on this gate, so it is never created after a failed step. A data source re-reads the live
 *    object (the manifest's own `object` attribute is the apply response, taken before the wait, so a
 *    postcondition there could not see the end state). The gate is re-evaluated on every later plan: a failed
 *    step keeps failing `cdktf diff/deploy` with the same message until the step is replaced (new run id, a
 *    changed value, or `-replace`), which then defers the read to apply time.
 *
 * 3. Immutable specs plan as replacement. The API server rejects in-place updates of a JobSet's spec, but
 *    kubernetes_manifest plans an in-place server-side apply for a CRD with a schema. So each step has a
 *    `terraform_data` whose `input` is the step's spec hash, chained with the previous step's
 *    (jobs/pipeline.ts `chainHash`), and the manifest has `lifecycle.replace_triggered_by` on it: a change to this
 *    step's spec, or to any earlier step's, updates the hash and replaces this JobSet (delete, then create and wait
 *    again). An unchanged pipeline plans no change. Chaining hashes rather than pointing replace_triggered_by at the
 *    previous manifest keeps provider-side drift on an earlier JobSet from re-running later steps.
 *
 * 4. How a wait can end without the JobSet ending, and what Terraform then does (manifest/provider/apply.go @ v2.38.0):
 *    - the wait reaches `timeouts.create`: the waiter returns a WaiterError, apply.go adds "Operation timed out" and
 *      still reads the object and returns it as NewState. A create that returns an error AND state is recorded as
 *      tainted, so the next plan replaces (deletes and re-creates) the JobSet, which may still be training. The wait is
 *      therefore derived from the Jobs' own deadlines (jobs/pipeline.ts `waitMinutes`: queue allowance + every attempt
 *      the failure policy allows), so an admitted JobSet ends by itself first; and the plan review reports a tainted
 *      step with the exact `terraform untaint` command (docs/operations.md, "How long a deploy waits, and if it stops waiting").
 *    - Ctrl-C, a killed runner, or an API error during the wait: apply.go returns without NewState, so the JobSet keeps
 *      running in the cluster but is not in state; the next create fails with "Cannot create resource that already
 *      exists" instead of deleting it. Wait for it, then import it (or delete it with kubectl to run the step again).
 *    Credentials cannot expire during a wait: the provider uses exec credentials (constructs/cluster-access.ts).
 *
 * No `ttlSecondsAfterFinished`: a finished JobSet must stay so Terraform does not plan it again (DESIGN).
 */
import { SpecHash } from './spec-hash';
import { Construct } from 'constructs';
import { ITerraformDependable, TerraformProvider } from 'cdktf';
import { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';
import { DataKubernetesResource } from '@cdktf/provider-kubernetes/lib/data-kubernetes-resource';
import type { PipelineStep } from '../jobs/pipeline';

/** The wait regex on `status.terminalState`: return when the JobSet ended, whichever way. */
export const TERMINAL_STATE_WAIT = { 'status.terminalState': '^(Completed|Failed)$' } as const;
/** How long deleting a JobSet (and its pods) may take on destroy or replacement. */
export const DELETE_TIMEOUT = '15m';

export interface JobSetStepProps {
  readonly step: PipelineStep;
  /** Pipeline name, for messages. */
  readonly pipeline: string;
  /** Objects this step must wait for: the previous step's gate, the SecretProviderClass. @default - none */
  readonly dependsOn?: ITerraformDependable[];
  /** Kubernetes provider. @default - the stack's default kubernetes provider */
  readonly provider?: TerraformProvider;
}

/** Escapes Terraform template sequences (`${`, `%{`) in every string, so manifests reach Kubernetes verbatim. */
export function escapeTemplates<T>(value: T): T {
  if (typeof value === 'string') return value.replace(/\$\{/g, () => '$${').replace(/%\{/g, () => '%%{') as unknown as T;
  if (Array.isArray(value)) return value.map((v) => escapeTemplates(v)) as unknown as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as object).map(([k, v]) => [escapeTemplates(k), escapeTemplates(v)])) as T;
  }
  return value;
}

/**
 * Paths that controllers other than Terraform may change after apply: labels/annotations (the provider's
 * defaults) and, per replicated job, the pod template fields Kueue rewrites when it admits a workload (node
 * selector, tolerations, labels, annotations from the ResourceFlavor). Listing them keeps those changes from
 * planning an in-place update of an immutable JobSet.
 */
export function computedFields(manifest: Record<string, unknown>): string[] {
  const rjobs = ((manifest.spec as { replicatedJobs?: unknown[] } | undefined)?.replicatedJobs ?? []).length;
  const perJob = Array.from({ length: rjobs }, (_, i) => {
    const pod = `spec.replicatedJobs[${i}].template.spec.template`;
    return [`${pod}.metadata.labels`, `${pod}.metadata.annotations`, `${pod}.spec.nodeSelector`, `${pod}.spec.tolerations`];
  }).flat();
  return ['metadata.labels', 'metadata.annotations', ...perJob];
}

/** The message the gate prints when the JobSet did not complete. */
export function failureMessage(pipeline: string, step: PipelineStep): string {
  return (
    `${pipeline}: step ${step.name} (JobSet ${step.jobSetName} in namespace ${step.namespace}) did not complete ` +
    `(terminalState "\${try(self.object.status.terminalState, "")}"). Read its logs: ${step.logsCommand} ; ` +
    `status and conditions: ${step.statusCommand} -o yaml. Re-run it with a new runId, or with ` +
    `terraform apply -replace on this step's kubernetes_manifest.`
  );
}

export class JobSetStep extends Construct {
  /** The JobSet. */
  public readonly jobSet: Manifest;
  /** The completion gate; later steps depend on it. */
  public readonly completed: DataKubernetesResource;
  /** Holds the chained spec hash; its change replaces the JobSet. */
  public readonly specHash: SpecHash;
  public readonly step: PipelineStep;

  constructor(scope: Construct, id: string, props: JobSetStepProps) {
    super(scope, id);
    const { step } = props;
    this.step = step;
    this.specHash = new SpecHash(this, 'SpecHash', step.specHash);
    const timeout = `${step.waitMinutes}m`;
    this.jobSet = new Manifest(this, 'JobSet', {
      provider: props.provider,
      manifest: escapeTemplates(step.manifest),
      computedFields: computedFields(step.manifest),
      wait: { fields: { ...TERMINAL_STATE_WAIT } },
      timeouts: { create: timeout, update: timeout, delete: DELETE_TIMEOUT },
      dependsOn: props.dependsOn,
      // A plain address string: cdktf renders a construct here as "${terraform_data.x}", which Terraform rejects in
      // replace_triggered_by (hashicorp/terraform-cdk#3196, #3532).
      lifecycle: { replaceTriggeredBy: [this.specHash.address] },
    });
    this.completed = new DataKubernetesResource(this, 'Completed', {
      provider: props.provider,
      apiVersion: String(step.manifest.apiVersion),
      kind: String(step.manifest.kind),
      metadata: { name: step.jobSetName, namespace: step.namespace },
      dependsOn: [this.jobSet],
      lifecycle: {
        postcondition: [
          {
            condition: '${try(self.object.status.terminalState, "") == "Completed"}',
            errorMessage: failureMessage(props.pipeline, step),
          },
        ],
      },
    });
  }
}
