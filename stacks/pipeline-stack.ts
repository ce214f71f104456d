/**
 * A pipeline stack: the SecretProviderClass, the files ConfigMap, the record, and ONE Argo Workflow whose DAG creates
 * the pipeline's JobSets in order in the cluster (jobs/argo.ts, constructs/pipeline-workflow.ts). The deploy returns
 * once the workflow controller has started the Workflow. Thin: everything it applies comes from jobs/.
 *
 * It finds the cluster through data sources from the same typed config (no cross-stack reference), so
 * `cdktf deploy <pipeline>` works on its own once `infra` exists and needs no read access to infra's state.
 * `cdktf destroy <pipeline>` deletes the pipeline's Kubernetes objects; the bucket and its data belong to infra.
 */
import { Construct } from 'constructs';
import { TerraformOutput } from 'cdktf';
import { GoogleProvider } from '../constructs/google-provider';
import { kubernetesProviderAccess } from '../constructs/cluster-access';
import { GkeCluster } from '../constructs/gke-cluster';
import { KubernetesProvider } from '@cdktf/provider-kubernetes/lib/provider';
import { Manifest } from '@cdktf/provider-kubernetes/lib/manifest';
import { escapeTemplates, PipelineWorkflow } from '../constructs/pipeline-workflow';
import { LEGACY_LOGICAL_IDS, LegacyStepWaits } from '../constructs/legacy-step-waits';
import { argoUiCommand, pipelineWorkflow } from '../jobs/argo';
import { SYSTEM_POOL_NAME } from '../jobs/platform';
import { PipelinePreflight, PlaceholderGuard, PlaceholderRef } from '../constructs/preflight';
import type * as RehearsalCheckModule from '../constructs/rehearsal-check';
import { TUTORIAL_MAXTEXT_OUTPUT } from '../jobs/names';
import { REHEARSAL_OUTPUT, rehearsalUnavailableText } from '../jobs/rehearsal';
import { EVAL_OUTPUT, gateText } from '../jobs/eval';
import type { Pipeline } from '../jobs/pipeline';
import type { Platform } from '../jobs/platform';
import { PipelineRecord, recordConfigMap } from '../jobs/record';
import { BackendProps, useBackend } from './backend';
import { ProjectStack } from './project-stack';

export interface PipelineStackProps extends BackendProps {
  readonly platform: Platform;
  readonly pipeline: Pipeline;
  /**
   * Reach the API server through GKE's DNS-based endpoint (IAM-authorized, Google-managed certificate) instead
   * of the IP endpoint: how hosted CI runners with no fixed address plan pipeline stacks. @default false
   */
  readonly dnsEndpoint?: boolean;
  /** Example-config placeholders still in the config: the plan fails at once naming each. @default - none */
  readonly placeholders?: readonly PlaceholderRef[];
  /**
   * What the stack records in the cluster for `npm run status` (jobs/record.ts): one ConfigMap `<pipeline>-record`.
   * @default - no record (status then reads the pipeline from the local config)
   */
  readonly record?: PipelineRecord;
}

/** Output name for a step value: `to_maxtext_jobset`, `train_logs`, ... */
function outputId(step: string, what: string): string {
  return `${step.replace(/-/g, '_')}_${what}`;
}

export class PipelineStack extends ProjectStack {
  /** The pipeline's Workflow (its steps are the JobSets inside it). */
  public readonly workflow: PipelineWorkflow;

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    super(scope, id);
    const { platform, pipeline } = props;
    useBackend(this, id, props, platform);

    new GoogleProvider(this, 'google', { project: platform.project, region: platform.region });
    // Plan-time checks (constructs/preflight.ts): placeholders, the token's version (never its value), the images.
    const preflight = new PlaceholderGuard(this, 'preflight', { placeholders: props.placeholders ?? [] });
    new PipelinePreflight(this, 'pipeline-preflight', {
      project: platform.project,
      hfTokenSecretId: platform.hfTokenSecretId,
      images: pipeline.images,
      precondition: preflight.precondition,
      secretCommand: platform.hfTokenSecretCommand,
    });
    // Whether a passing rehearsal of exactly this combination exists (the `rehearsal` output); with requireRehearsal the
    // plan fails without it. Loaded only with a proof: its data source is no other stack's (main.test.ts: a synth loads
    // only what it uses).
    const rehearsal = pipeline.rehearsalCheck;
    if (rehearsal && 'proof' in rehearsal) {
      const { RehearsalCheck } = require('../constructs/rehearsal-check') as typeof RehearsalCheckModule;
      new RehearsalCheck(this, 'rehearsal-check', { proof: rehearsal.proof, required: rehearsal.required, precondition: preflight.precondition });
    } else if (rehearsal) {
      new TerraformOutput(this, REHEARSAL_OUTPUT, { value: rehearsalUnavailableText(pipeline.name, rehearsal.unavailable) });
    }
    // infra's cluster, found through a data source (GkeCluster.fromClusterAttributes): the same endpoint rule as infra.
    const cluster = GkeCluster.fromClusterAttributes(this, 'cluster', {
      name: platform.clusterName,
      location: platform.region,
      project: platform.project,
    });
    // Exec credentials (constructs/cluster-access.ts): a training wait of many hours outlives any access token.
    const endpoint = cluster.endpoint(props.dnsEndpoint ?? false);
    new KubernetesProvider(this, 'kubernetes', kubernetesProviderAccess(endpoint));

    const spc = new Manifest(this, 'hf-token', { manifest: pipeline.secretProviderClass });
    // The record of what this stack deploys (jobs/record.ts), before the first step waits: status reads it at once.
    // Escaped like the Workflow's manifests: the record holds what the user wrote (file paths, repository and dataset names).
    if (props.record) new Manifest(this, 'record', { manifest: escapeTemplates(recordConfigMap(props.record, pipeline.labels)) });
    // The reward file (and any other file the recipe ships), mounted read-only by the training pods.
    const files = pipeline.filesConfigMap ? [new Manifest(this, 'files', { manifest: pipeline.filesConfigMap })] : [];
    const workflow = pipelineWorkflow(pipeline, { systemPool: SYSTEM_POOL_NAME });
    this.workflow = new PipelineWorkflow(this, 'workflow', {
      workflow,
      dependsOn: [spc, ...files],
    });
    // A pipeline deployed with the per-step waits of earlier versions: forget those resources, delete nothing. Every
    // step that ever existed (a run whose config since dropped eval still has its old eval resources in state).
    new LegacyStepWaits(this, 'legacy-step-waits', { steps: Object.keys(LEGACY_LOGICAL_IDS) });

    const paths: Record<string, string | undefined> = {
      hf_source: `hf://${pipeline.model.hfRepo}`,
      maxtext_checkpoint: pipeline.paths.maxtextCheckpoint,
      train_output_dir: pipeline.paths.trainOutputDir,
      trained_checkpoint: pipeline.paths.trainedCheckpoint,
      hf_export_dir: pipeline.paths.hfExportDir,
      pathways_scratch: pipeline.paths.pathwaysScratch,
      eval_json: pipeline.eval?.evalJson,
    };
    for (const [name, value] of Object.entries(paths)) {
      if (value !== undefined) new TerraformOutput(this, name, { value });
    }
    if (pipeline.eval) new TerraformOutput(this, EVAL_OUTPUT, { value: gateText(pipeline.eval) });
    if (pipeline.maxtextDifference !== undefined) {
      new TerraformOutput(this, TUTORIAL_MAXTEXT_OUTPUT, { value: pipeline.maxtextDifference });
    }
    new TerraformOutput(this, 'workflow_name', { value: `${pipeline.namespace}/${(workflow.metadata as { name: string }).name}` });
    new TerraformOutput(this, 'status_command', { value: `npm run status -- ${pipeline.name}` });
    new TerraformOutput(this, 'workflows_ui_command', { value: argoUiCommand() });
    for (const step of pipeline.steps) {
      new TerraformOutput(this, outputId(step.name, 'jobset'), { value: step.jobSetName });
      new TerraformOutput(this, outputId(step.name, 'logs'), { value: step.logsCommand });
    }
  }
}
