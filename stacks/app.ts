/**
 * Composition of the whole program: one `infra` stack and one stack per pipeline recipe, all from one
 * loaded config. main.ts calls this and synthesizes; tests call it with their own config and outdir.
 */
import * as path from 'path';
import { App } from 'cdktf';
import { LoadedConfig } from '../config/load';
import { platformFromConfig } from '../config/platform';
import { InfraStack } from './infra-stack';

export interface BuildOptions {
  /** Where `app.synth()` writes. @default cdktf.out (or CDKTF_OUTDIR when the cdktf CLI sets it) */
  readonly outdir?: string;
}

/** Builds every stack; throws (before anything is written) when the config or a recipe is invalid. */
export function buildApp(loaded: LoadedConfig, options: BuildOptions = {}): App {
  const { config } = loaded;
  const platform = platformFromConfig(loaded);

  const app = new App(options.outdir ? { outdir: options.outdir } : {});
  new InfraStack(app, 'infra', {
    platform,
    authorizedCidrs: config.controlPlane.authorizedCidrs,
    dnsEndpoint: config.controlPlane.dnsEndpoint,
    releaseChannel: config.releaseChannel,
    deletionProtection: config.deletionProtection,
    systemPool: config.systemPool,
    cpuPoolMaxNodes: config.cpuPool.maxNodes,
    bucketForceDestroy: config.bucketSettings.forceDestroy,
    scratchExpiryDays: config.bucketSettings.scratchExpiryDays,
    jobsetVersion: config.controllers.jobsetVersion,
    kueueVersion: config.controllers.kueueVersion,
    queuesChartPath: path.join(loaded.repoRoot, 'charts', 'kueue-queues'),
    stateBucket: config.stateBucket,
  });
  return app;
}
