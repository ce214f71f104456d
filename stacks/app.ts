/**
 * Composition of the whole program: one `infra` stack and one stack per selected pipeline, all cut from one
 * validated `Deployment` (jobs/deployment.ts; config/deployment.ts `loadDeployment` builds it). main.ts calls this and
 * synthesizes; tests call it with their own deployment and outdir. Nothing here reads config or raises a config error:
 * every value arrives resolved and checked.
 */
import { App } from 'cdktf';
import type { Deployment } from '../jobs/deployment';
import { InfraStack } from './infra-stack';
import { PipelineStack } from './pipeline-stack';
import type * as ServeStackModule from './serve-stack';
import type * as TeardownStackModule from './teardown-stack';

export interface BuildOptions {
  /** Where `app.synth()` writes. @default cdktf.out (or CDKTF_OUTDIR when the cdktf CLI sets it) */
  readonly outdir?: string;
}

/** Builds every stack of the deployment. */
export function buildApp(deployment: Deployment, options: BuildOptions = {}): App {
  return composeApp(deployment, options).app;
}

/** The app and every notice for the user (unread variables, pipelines left out, fit warnings), each once. */
export function composeApp(deployment: Deployment, options: BuildOptions = {}): { app: App; notices: readonly string[] } {
  const { platform, state, cluster, preflight } = deployment;
  // No construct stack traces: they cost ~10% of the synth and only serve cdktf's own debugging.
  const app = new App({ stackTraces: false, ...(options.outdir ? { outdir: options.outdir } : {}) });
  // A destroy (TEARDOWN) synthesizes each stack it names for its teardown: infra without the checks that only a create
  // needs, every other stack as its backend and providers only (stacks/teardown-stack.ts).
  const teardown = new Set(deployment.teardown);
  new InfraStack(app, 'infra', {
    platform,
    cluster,
    nodePools: deployment.nodePools,
    bucket: deployment.bucket,
    controllers: deployment.controllers,
    queues: deployment.queues,
    state,
    preflight,
    notify: deployment.notify,
    teardown: teardown.has('infra'),
  });
  const shell = (id: string) =>
    new (require('./teardown-stack') as typeof TeardownStackModule).TeardownStack(app, id, { platform, ...state, dnsEndpoint: cluster.dnsEndpoint });
  const built = new Set(['infra']);
  for (const pipeline of deployment.pipelines) {
    built.add(pipeline.name);
    if (teardown.has(pipeline.name)) shell(pipeline.name);
    else {
      new PipelineStack(app, pipeline.name, {
        platform,
        pipeline,
        record: deployment.records[pipeline.name],
        ...state,
        dnsEndpoint: cluster.dnsEndpoint,
        placeholders: preflight.placeholders,
      });
    }
    if (!pipeline.serve) continue;
    built.add(pipeline.serve.stack);
    // Loaded only for a serve stack: its data sources are no other stack's (main.test.ts: a synth loads only the
    // provider modules its stacks use).
    if (teardown.has(pipeline.serve.stack)) shell(pipeline.serve.stack);
    else new (require('./serve-stack') as typeof ServeStackModule).ServeStack(app, pipeline.serve.stack, { platform, plan: pipeline.serve, ...state, dnsEndpoint: cluster.dnsEndpoint });
  }
  // A stack the destroy names that this config no longer builds (a pipeline removed or off, its serve stack): its state
  // key and providers are all the destroy needs.
  for (const id of teardown) if (!built.has(id)) shell(id);
  return { app, notices: deployment.notices };
}
