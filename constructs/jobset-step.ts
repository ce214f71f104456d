/**
 * JobSetStep: one pipeline step as Terraform: the JobSet (`kubernetes_manifest`), a wait for the run to end that
 * fails at once when it cannot end by itself, a completion gate that fails the deploy when the run failed, and a spec
 * hash that turns any spec change into a replacement.
 *
 * How it works with hashicorp/kubernetes 2.38 (read in manifest/provider/{apply,waiter,datasource}.go):
 *
 * 1. Wait, for success, failure AND a step that will not end by itself. The manifest itself does not wait
 *    (hashicorp/kubernetes v2.38.0 manifest/provider/waiter.go: `FieldWaiter` ANDs its field regexes and ends on a match,
 *    the timeout or an API error; `ConditionsWaiter` likewise; neither can end on a failure, and no single field of a
 *    JobSet tells a deactivated one from a queued one: both are suspended with `Suspended=True`). A JobSet whose Kueue
 *    workload is deactivated stays suspended with no `status.terminalState` (JobSet v0.12.0 sets it only on completion
 *    and failure; Kueue v0.19.2 `triggerDeactivation`), so a field wait on terminalState held the state lock until
 *    its create timeout (days) and then tainted the JobSet. Instead a `terraform_data` (`Wait`) runs
 *    status/step-wait.ts as a local-exec provisioner once the JobSet is applied: it returns when terminalState is
 *    Completed or Failed, and fails within one poll (15 s) when the workload is deactivated (or the JobSet is gone, or
 *    the workload stays Inadmissible 15 minutes), printing the reason and the commands that retry. A failed
 *    provisioner taints only that `terraform_data`, so the next deploy waits again on the same JobSet; its
 *    `triggers_replace` is the JobSet's uid, so a replaced JobSet is waited for anew.
 *
 * 2. Fail promptly with the name and the logs command. A `data "kubernetes_resource"` reads the JobSet after the
 *    wait (depends_on) and carries a `postcondition` `try(self.object.status.terminalState, "") == "Completed"`
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
 * 4. How a wait can end without the JobSet ending, and what Terraform then does: the wait's own deadline
 *    (jobs/pipeline.ts `waitMinutes`: queue allowance + every attempt the failure policy allows, so an admitted JobSet
 *    ends by itself first), or 15 minutes without an answer from the API, fail the provisioner with a message; the
 *    JobSet is untouched and stays in state, and the next deploy waits for it again. Ctrl-C during the wait fails the
 *    provisioner (the `terraform_data` is tainted), a killed runner leaves it out of state: either way the next
 *    deploy only waits again. The manifest's
 *    `timeouts` stay as the bound of the server-side apply. Credentials cannot expire during a wait: the waiter, like
 *    the provider, runs the exec plugin (constructs/cluster-access.ts) whenever its credential expires.
 *
 * No `ttlSecondsAfterFinished`: a finished JobSet must stay so Terraform does not plan it again (DESIGN).
 */
import { SpecHash } from './spec-hash';
import { Construct } from 'constructs';
import { Fn, ITerraformDependable, LocalExecProvisioner, TerraformProvider, TerraformResource } from 'cdktf';
import { ClusterEndpoint, GKE_AUTH_PLUGIN } from './cluster-access';
import { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';
import { DataKubernetesResource } from '@cdktf/provider-kubernetes/lib/data-kubernetes-resource';
import type { PipelineStep } from '../jobs/pipeline';

/**
 * The waiter, relative to the directory Terraform runs in: cdktf runs it in `<output>/stacks/<stack>` (cdktf.json
 * `output`: cdktf.out), and `npm run deploy` builds dist/ first.
 */
export const STEP_WAIT_SCRIPT = '../../../dist/status/step-wait.js';
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
  /** The API server the waiter polls: the same endpoint as the kubernetes provider's. */
  readonly endpoint: ClusterEndpoint;
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

/** The waiter's command line (status/step-wait.ts parseArgs). Names are DNS labels: nothing to quote. */
export function waitCommand(pipeline: string, step: PipelineStep): string {
  return `node ${STEP_WAIT_SCRIPT} --namespace ${step.namespace} --jobset ${step.jobSetName} --pipeline ${pipeline} --step ${step.name} --minutes ${step.waitMinutes}`;
}

/** A `terraform_data` that only carries `triggers_replace` and the provisioners (constructs/builtin-data.ts). */
class StepWait extends TerraformResource {
  constructor(scope: Construct, id: string, private readonly triggers: unknown, provisioner: LocalExecProvisioner, jobSet: ITerraformDependable) {
    // depends_on states what the trigger implies: the plan review follows depends_on from step to step.
    super(scope, id, { terraformResourceType: 'terraform_data', provisioners: [provisioner], dependsOn: [jobSet] });
  }

  protected synthesizeAttributes(): Record<string, unknown> {
    return { triggers_replace: this.triggers };
  }
}

export class JobSetStep extends Construct {
  /** The JobSet. */
  public readonly jobSet: Manifest;
  /** The wait for the JobSet's end (status/step-wait.ts); the gate reads the JobSet after it. */
  public readonly wait: TerraformResource;
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
      timeouts: { create: timeout, update: timeout, delete: DELETE_TIMEOUT },
      dependsOn: props.dependsOn,
      // A plain address string: cdktf renders a construct here as "${terraform_data.x}", which Terraform rejects in
      // replace_triggered_by (hashicorp/terraform-cdk#3196, #3532).
      lifecycle: { replaceTriggeredBy: [this.specHash.address] },
    });
    const ca = props.endpoint.caCertificateBase64;
    this.wait = new StepWait(this, 'Wait', { jobset_uid: Fn.lookupNested(this.jobSet.object, ['metadata', 'uid']) }, {
      type: 'local-exec',
      command: waitCommand(props.pipeline, step),
      environment: {
        KUBE_HOST: props.endpoint.host,
        ...(ca !== undefined ? { KUBE_CA_B64: ca } : {}),
        KUBE_EXEC_COMMAND: GKE_AUTH_PLUGIN.command,
        KUBE_EXEC_API_VERSION: GKE_AUTH_PLUGIN.apiVersion,
      },
    }, this.jobSet);
    this.completed = new DataKubernetesResource(this, 'Completed', {
      provider: props.provider,
      apiVersion: String(step.manifest.apiVersion),
      kind: String(step.manifest.kind),
      metadata: { name: step.jobSetName, namespace: step.namespace },
      dependsOn: [this.wait],
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
