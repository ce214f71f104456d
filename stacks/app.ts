/**
 * Composition of the whole program: one `infra` stack and one stack per pipeline recipe, all from one
 * loaded config. main.ts calls this and synthesizes; tests call it with their own config and outdir.
 */
import * as path from 'path';
import { App } from 'cdktf';
import { LoadedConfig } from '../config/load';
import { selectAndBuildPipelines } from '../config/pipelines';
import { platformFromConfig, reservationUses } from '../config/platform';
import { JOBSET_POD_LABELS } from '../jobs/jobset';
import { NotifiedPipeline } from '../jobs/notifications';
import { Pipeline } from '../jobs/pipeline';
import { InfraStack } from './infra-stack';
import { PipelineStack } from './pipeline-stack';

export interface BuildOptions {
  /** Where `app.synth()` writes. @default cdktf.out (or CDKTF_OUTDIR when the cdktf CLI sets it) */
  readonly outdir?: string;
}

/** Builds every stack; throws (before anything is written) when the config or a recipe is invalid. */
export function buildApp(loaded: LoadedConfig, options: BuildOptions = {}): App {
  return composeApp(loaded, options).app;
}

/** The app and every notice for the user (unread variables, pipelines left out, fit warnings), each once. */
export function composeApp(loaded: LoadedConfig, options: BuildOptions = {}): { app: App; notices: string[] } {
  const { config } = loaded;
  const platform = platformFromConfig(loaded);
  // Every selected pipeline is built (and validated against the platform) before any stack exists.
  const built = selectAndBuildPipelines(loaded, platform);
  const pipelines = built.pipelines;
  const notices = [...new Set([...loaded.notices, ...built.notices])];

  // No construct stack traces: they cost ~10% of the synth and only serve cdktf's own debugging.
  const app = new App({ stackTraces: false, ...(options.outdir ? { outdir: options.outdir } : {}) });
  new InfraStack(app, 'infra', {
    platform,
    authorizedCidrs: config.controlPlane.authorizedCidrs,
    allowPublicAccess: config.controlPlane.allowPublicAccess,
    dnsEndpoint: config.controlPlane.dnsEndpoint,
    releaseChannel: config.releaseChannel,
    deletionProtection: config.deletionProtection,
    upgradeExclusionDays: config.upgradeExclusionDays,
    systemPool: config.systemPool,
    cpuPoolMaxNodes: config.cpuPool.maxNodes,
    bucketForceDestroy: config.bucketSettings.forceDestroy,
    scratchExpiryDays: config.bucketSettings.scratchExpiryDays,
    bucketSoftDeleteDays: config.bucketSettings.softDeleteDays,
    bucketAccess: config.bucketSettings.access,
    jobsetVersion: config.controllers.jobsetVersion,
    kueueVersion: config.controllers.kueueVersion,
    queuesChartPath: path.join(loaded.repoRoot, 'charts', 'kueue-queues'),
    stateBucket: config.stateBucket,
    localStateDir: loaded.repoRoot,
    placeholders: loaded.placeholders,
    reservations: reservationUses(loaded, platform),
    notify: { emails: config.notify.emails, stallMinutes: config.notify.stallMinutes, pipelines: pipelines.map(notifiedPipeline) },
  });
  for (const pipeline of pipelines) {
    new PipelineStack(app, pipeline.name, {
      platform,
      pipeline,
      stateBucket: config.stateBucket,
      localStateDir: loaded.repoRoot,
      dnsEndpoint: config.controlPlane.dnsEndpoint,
      placeholders: loaded.placeholders,
    });
  }
  return { app, notices };
}

/** What notifications need of a pipeline: its name, the step lines it prints, its training main pod's replicated job. */
export function notifiedPipeline(p: Pipeline): NotifiedPipeline {
  const train = p.steps.find((s) => s.name === 'train')!;
  return { name: p.name, kind: p.recipe.train.kind, trainMainReplicatedJob: train.mainPodSelector[JOBSET_POD_LABELS.replicatedJob] };
}
