/**
 * config/'s one entry: `loadDeployment()` reads the environment and the config file, validates them, resolves the
 * defaults and where each value came from, derives the platform, selects and builds the pipelines, and returns ONE
 * frozen `Deployment` (jobs/deployment.ts). Every user-facing config error is thrown here, before any stack exists.
 *
 * The data flow, one way (main.ts and docs/architecture.md say the same from the entry point's side):
 *  1. config/load.ts `loadConfig`: file + env -> schema-validated `Config` with its defaults, `sources` (path -> env
 *     var or file key), the placeholders (each described) and the load-time notices. `LoadedConfig` stays in config/.
 *  2. config/platform.ts `platformFromConfig`: the TPU slice groups and their capacity -> jobs/platform.ts
 *     `derivePlatform` (every shared name); `reservationUses`: what each reservation must hold, where it was set.
 *  3. config/pipelines.ts `selectAndBuildPipelines`: the recipes that fit the platform -> jobs/pipeline.ts
 *     `buildPipeline` each (manifests, images, MaxText's start-up checks), with each option's source for messages.
 *  4. here: the Kueue objects and quota (jobs/kueue.ts), the notification plan (jobs/notifications.ts), the
 *     credentials command; the settings cut into typed parts (cluster, nodePools, bucket, controllers, queues, state,
 *     preflight, notify); the provenance of every resolved value; the notices once each; all frozen.
 * Then the entry point hands the deployment to stacks/app.ts `composeApp`, which cuts it for the stacks; the stacks
 * hand each part to its construct. Only the entry points (main.ts, status/cli.ts, bench/) call this; review/cli.ts
 * runs main.js. Nothing below them imports config/ (__tests__/architecture.test.ts).
 */
import * as path from 'path';
import type { Deployment } from '../jobs/deployment';
import { kueueObjects, kueueQuota } from '../jobs/kueue';
import { MAIN_CONTAINER } from '../jobs/jobset';
import { notificationPlan, notifiedPipeline } from '../jobs/notifications';
import { credentialsCommand } from '../jobs/platform';
import { pipelineRecord } from '../jobs/record';
import { ConfigError, LoadedConfig, loadConfig, LoadOptions, teardownProblems } from './load';
import { selectAndBuildPipelines } from './pipelines';
import { platformFromConfig, reservationUses } from './platform';

export type { Deployment } from '../jobs/deployment';

/** Loads, validates and resolves the whole deployment. Throws ConfigError (naming each value's source) when it cannot. */
export function loadDeployment(options: LoadOptions = {}): Deployment {
  return deploymentOf(loadConfig(options));
}

/** The deployment of an already loaded config (loadDeployment without the loading). */
export function deploymentOf(loaded: LoadedConfig): Deployment {
  const { config } = loaded;
  const teardown = teardownProblems(loaded.teardown ?? []);
  if (teardown.length > 0) throw new ConfigError(teardown);
  const platform = platformFromConfig(loaded);
  const reservations = reservationUses(loaded, platform);
  // Every selected pipeline is built (and validated against the platform) before any stack exists.
  const built = selectAndBuildPipelines(loaded, platform);
  const queueOptions = { platform, cpuPoolMaxNodes: config.cpuPool.maxNodes };
  const notified = built.pipelines.map(notifiedPipeline);
  const scope = { clusterName: platform.clusterName, namespace: platform.namespace, pipelines: notified };
  const notificationsPlan = notificationPlan(scope, MAIN_CONTAINER, config.notify.stallMinutes);
  const { origin } = loaded;
  return deepFreeze({
    origin: {
      name: `${platform.project}.${platform.clusterName}`,
      configFile: origin.configFile,
      variables: origin.variables,
      line: `environment ${platform.project}.${platform.clusterName} (project ${platform.project}, cluster ${platform.clusterName}, region ${platform.region}), built from ${origin.builtFrom}`,
    },
    platform,
    cluster: {
      authorizedCidrs: config.controlPlane.authorizedCidrs,
      allowPublicAccess: config.controlPlane.allowPublicAccess,
      dnsEndpoint: config.controlPlane.dnsEndpoint,
      releaseChannel: config.releaseChannel,
      deletionProtection: config.deletionProtection,
      upgradeExclusionDays: config.upgradeExclusionDays,
      credentialsCommand: credentialsCommand(platform.clusterName, platform.region, platform.project, config.controlPlane.dnsEndpoint),
    },
    nodePools: { system: config.systemPool, cpuMaxNodes: config.cpuPool.maxNodes },
    bucket: {
      forceDestroy: config.bucketSettings.forceDestroy,
      scratchExpiryDays: config.bucketSettings.scratchExpiryDays,
      softDeleteDays: config.bucketSettings.softDeleteDays,
      access: config.bucketSettings.access,
    },
    controllers: {
      jobsetVersion: config.controllers.jobsetVersion,
      kueueVersion: config.controllers.kueueVersion,
      releaseReaders: config.controllers.releaseReaders,
      queuesChartPath: path.join(loaded.repoRoot, 'charts', 'kueue-queues'),
    },
    queues: { objects: kueueObjects(queueOptions), tpuChipsByFlavor: Object.fromEntries(kueueQuota(queueOptions).tpuFlavors.map((f) => [f.flavor, f.chips])) },
    state: { stateBucket: config.stateBucket, localStateDir: loaded.repoRoot },
    preflight: { placeholders: loaded.placeholders, reservations },
    notify: { emails: config.notify.emails, pipelines: notified, plan: notificationsPlan },
    pipelines: built.pipelines,
    records: Object.fromEntries(built.pipelines.map((p) => [p.name, pipelineRecord(p, platform)])),
    notices: [...new Set([...loaded.notices, ...built.notices])],
    ...(built.lockNote ? { lockNote: built.lockNote } : {}),
    teardown: loaded.teardown ?? [],
    provenance: loaded.provenance,
  });
}

/** Freezes an object graph of plain objects and arrays, so nothing below the entry point can change the deployment. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
