// `npm run synth [-- serve-<pipeline> rehearse-<pipeline> --output <dir>]`: the build step (scripts/build-if-stale.mjs:
// tsc only when a source's content changed), then the compiled app (dist/main.js) in this same process, with what
// `cdktf synth` (cdktf-cli 0.21.0) would give it and do after it; no cdktf-cli, no second Node. Synthesizing needs no
// Terraform: diff, deploy and destroy still go through cdktf-cli (scripts/cdktf.mjs).
//
// What cdktf-cli 0.21.0 does for `cdktf synth` (@cdktf/cli-core 0.21.0 src/lib/synth-stack.js `SynthStack.synth`,
// @cdktf/commons 0.21.0 src/config.js `parseConfig`), and what this does instead:
//   - runs cdktf.json's `app` with the environment minus every TF_VAR_* variable, plus CDKTF_OUTDIR (the output folder),
//     CDKTF_CONTINUE_SYNTH_ON_ERROR_ANNOTATIONS=true, SYNTH_HCL_OUTPUT=false and CDKTF_CONTEXT_JSON (cdktf.json's
//     `context` with `cdktfRelativeModules`: cdktf.json's relative terraformModules, none here); NODE_OPTIONS
//     --max-old-space-size=4096 for ts-node, which this program does not use. Here: the same variables in this process.
//   - reads manifest.json (an app that did not synthesize is an error) and says so when it names no stack;
//   - removes every folder under <outdir>/stacks that the manifest does not name (a stack no longer synthesized).
// `__tests__/synth-runner.test.ts` synthesizes through cdktf-cli and through this, and compares the folders byte for byte.
//
// The stack arguments do what they do for scripts/cdktf.mjs: `serve-<pipeline>` and `rehearse-<pipeline>` turn that
// stack on (SERVE, REHEARSE). Without `--output` the app writes into the environment's own folder
// (`cdktf.out.<project>.<cluster>`, main.ts --environment-outdir). Exit status: tsc's when the build fails, 1 when the
// config is refused (the app prints why), 2 on a wrong argument, else 0.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { buildIfStale, enableCompileCache, ROOT } from './build-if-stale.mjs';
import { rehearseList, serveList } from './cdktf.mjs';

/** The arguments as { outdir, serve, rehearse }, or { error }. */
export function synthArgs(args, env) {
  let outdir;
  const stacks = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-o' || a === '--output') {
      outdir = args[++i];
      if (outdir === undefined || outdir === '') return { error: `${a} needs a folder` };
    } else if (a.startsWith('--output=')) outdir = a.slice('--output='.length);
    else if (/^(serve|rehearse)-./.test(a)) stacks.push(a);
    else return { error: `unknown argument '${a}'` };
  }
  return { outdir, serve: serveList(stacks, env.SERVE), rehearse: rehearseList(stacks, env.REHEARSE) };
}

/** The environment cdktf-cli 0.21.0 runs the app with (SynthStack.synth), for `outdir` (undefined: the app's choice). */
export function synthEnv(env, outdir, context) {
  const out = Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith('TF_VAR_')));
  // parseConfig puts cdktf.json's `context`, when it has one, into CDKTF_CONTEXT_JSON before SynthStack reads it.
  const current = context ?? (env.CDKTF_CONTEXT_JSON ? JSON.parse(env.CDKTF_CONTEXT_JSON) : {});
  return {
    ...out,
    ...(outdir !== undefined ? { CDKTF_OUTDIR: outdir } : {}),
    CDKTF_CONTINUE_SYNTH_ON_ERROR_ANNOTATIONS: 'true',
    CDKTF_CONTEXT_JSON: JSON.stringify({ ...current, cdktfRelativeModules: [] }),
    SYNTH_HCL_OUTPUT: 'false',
  };
}

/** After the app: the manifest's stacks; every other folder under <outdir>/stacks removed. */
export function afterSynth(outdir) {
  const manifest = JSON.parse(readFileSync(path.join(outdir, 'manifest.json'), 'utf8'));
  const stacks = Object.keys(manifest.stacks ?? {});
  const stacksDir = path.join(outdir, 'stacks');
  for (const e of readdirSync(stacksDir, { withFileTypes: true })) {
    if (e.isDirectory() && !stacks.includes(e.name)) rmSync(path.join(stacksDir, e.name), { recursive: true });
  }
  return stacks;
}

function main(argv) {
  const parsed = synthArgs(argv, process.env);
  if (parsed.error) {
    process.stderr.write(`usage: npm run synth [-- serve-<pipeline> rehearse-<pipeline> --output <dir>]: ${parsed.error}\n`);
    return 2;
  }
  const built = buildIfStale();
  if (built !== 0) return built;
  const { context } = JSON.parse(readFileSync(path.join(ROOT, 'cdktf.json'), 'utf8'));
  const env = synthEnv(process.env, parsed.outdir, context);
  if (parsed.serve) env.SERVE = parsed.serve;
  if (parsed.rehearse) env.REHEARSE = parsed.rehearse;
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  Object.assign(process.env, env);
  process.chdir(ROOT);
  process.argv = [process.argv[0], path.join(ROOT, 'dist', 'main.js'), ...(parsed.outdir === undefined ? ['--environment-outdir'] : [])];
  enableCompileCache();
  // The app synthesizes as it loads; on a refused config it prints why and exits 1 itself.
  const { synthesized } = createRequire(import.meta.url)(path.join(ROOT, 'dist', 'main.js'));
  if (!synthesized) {
    process.stderr.write(`ERROR: synthesis failed: dist/main.js wrote no manifest\n`);
    return 1;
  }
  let stacks;
  try {
    stacks = afterSynth(synthesized.outdir);
  } catch (err) {
    process.stderr.write(`ERROR: synthesis failed, because app was expected to call 'synth()', but didn't: ${err.message}\n`);
    return 1;
  }
  if (stacks.length === 0) process.stderr.write('ERROR: No Terraform code synthesized.\n');
  process.stdout.write(`Synthesized ${stacks.length} stacks into ${synthesized.outdir}: ${stacks.join(', ')}\n`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(ROOT, 'scripts', 'synth.mjs')) process.exitCode = main(process.argv.slice(2));
