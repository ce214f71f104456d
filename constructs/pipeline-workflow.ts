/**
 * PipelineWorkflow: a pipeline as ONE Argo Workflow (`kubernetes_manifest`) whose DAG creates the step JobSets in
 * order (jobs/argo.ts `pipelineWorkflow`). Terraform declares it and returns as soon as the API server has accepted
 * it (the CRD's schema): no terminal, no local process and no state lock is part of a run.
 *
 * No `wait` block, on purpose: with hashicorp/kubernetes v2.38.0 a wait that ends without its match (a timeout, an
 * interrupted apply) returns an error AND the object's state (manifest/provider/apply.go), so Terraform records the
 * Workflow as tainted and the next deploy would replace it, deleting the running JobSets. Without a wait the create is
 * one API call: an interrupt lands before it (nothing in the cluster) or after it (the Workflow runs and is in state).
 * Where the run stands is `npm run status` (the stack's `status_command` output).
 *
 * The Workflow's name carries a hash of its whole spec (jobs/argo.ts workflowName), so a changed spec is a new name, which
 * kubernetes_manifest plans as a replacement (delete, then create); an unchanged pipeline plans nothing. The Workflow's
 * `foregroundDeletion` finalizer makes the delete end only once the JobSets it owns are gone (the JobSets carry its
 * controller ownerReference, `setOwnerReference`).
 *
 * Paths the workflow controller writes (labels `workflows.argoproj.io/phase|completed`, annotations) are computed
 * fields, so its updates never plan a change.
 *
 * How hashicorp/kubernetes v2.38.0 (the provider @cdktf/provider-kubernetes 12.1.1 is generated from; read at tag
 * v2.38.0) plans it: it types the manifest from the Workflow CRD in the cluster (manifest/provider/resource.go
 * `TFTypeFromOpenAPI`, `lookUpGVKinCRDs`), which infra installs in full (jobs/argo.ts `crds.full: true`, v4.1.2's
 * 2.8 MB CRD), with `status` dropped from the type; int-or-string fields go out as integers again
 * (manifest/payload/from_value.go); a path tagged `x-kubernetes-preserve-unknown-fields` would be typed dynamic
 * (manifest/openapi/schema.go) and could come back from the API in another shape ("inconsistent result after apply"):
 * the Workflow sets none (__tests__/crd-schemas.test.ts). The controller adds no finalizer to it unless artifact GC is
 * configured (argo-workflows v4.1.2 workflow/controller/artifact_gc.go). So no `field_manager` override and no
 * further computed field is needed; plan time and memory against the full CRD, and a refresh after the controller's
 * writes, can only be seen against a real API server.
 */
import { Construct } from 'constructs';
import { ITerraformDependable, TerraformProvider } from 'cdktf';
import { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';

/** Escapes Terraform template sequences (`${`, `%{`) in every string, so manifests reach Kubernetes verbatim. */
export function escapeTemplates<T>(value: T): T {
  if (typeof value === 'string') return value.replace(/\$\{/g, () => '$${').replace(/%\{/g, () => '%%{') as unknown as T;
  if (Array.isArray(value)) return value.map((v) => escapeTemplates(v)) as unknown as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as object).map(([k, v]) => [escapeTemplates(k), escapeTemplates(v)])) as T;
  }
  return value;
}

/** How long creating the Workflow may take (one API call). */
export const ACCEPT_TIMEOUT = '5m';
/** How long deleting the Workflow may take: its JobSets (and their pods) are deleted first. */
export const WORKFLOW_DELETE_TIMEOUT = '20m';

export interface PipelineWorkflowProps {
  /** The Workflow manifest (jobs/argo.ts pipelineWorkflow). */
  readonly workflow: Record<string, unknown>;
  /** Objects that must exist before the first step runs: the SecretProviderClass, the files ConfigMap. @default - none */
  readonly dependsOn?: ITerraformDependable[];
  /** Kubernetes provider. @default - the stack's default kubernetes provider */
  readonly provider?: TerraformProvider;
}

export class PipelineWorkflow extends Construct {
  public readonly manifest: Manifest;

  constructor(scope: Construct, id: string, props: PipelineWorkflowProps) {
    super(scope, id);
    this.manifest = new Manifest(this, 'Workflow', {
      provider: props.provider,
      manifest: escapeTemplates(props.workflow),
      computedFields: ['metadata.labels', 'metadata.annotations'],
      timeouts: { create: ACCEPT_TIMEOUT, update: ACCEPT_TIMEOUT, delete: WORKFLOW_DELETE_TIMEOUT },
      dependsOn: props.dependsOn,
    });
  }
}
