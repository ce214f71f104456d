/**
 * Entry point (cdktf.json runs the compiled dist/main.js): load config -> build every stack -> synth.
 * Deploy one stack with `cdktf deploy infra` or `cdktf deploy <pipeline>`. `node dist/main.js --check` loads and
 * builds everything but writes nothing and prints only errors (`npm run synth` runs it before `cdktf synth`).
 *
 * Streams, as cdktf-cli 0.21 shows them (@cdktf/commons src/util.js `exec`/`shell`, src/logging.js): the app's stdout
 * is echoed as plain output, its stderr is logged at ERROR level (`[ERROR] default - ...`), and when the app fails
 * the CLI prints both again under "Command output on stdout/stderr". So notes go to stdout (never shown as errors) and
 * errors to stderr; `--check` prints a config error once, before the CLI runs the app.
 */
import * as os from 'os';
import { loadDeployment } from './config/deployment';
import { escapeText } from './config/load';
import { composeApp } from './stacks/app';

const check = process.argv.includes('--check');
try {
  // --check builds in memory only: its App points at the existing temp folder, and synth() is never called.
  const { app, notices } = composeApp(loadDeployment(), check ? { outdir: os.tmpdir() } : {});
  if (!check) {
    // Notices (unread tutorial variables, pipelines left out, placeholders, tight fits): one line each, once.
    for (const notice of notices) process.stdout.write(`note: ${escapeText(notice, true)}\n`);
    app.synth();
  }
} catch (err) {
  // Config and recipe errors are for the user, not a stack trace: print the message, write nothing.
  process.stderr.write(`${escapeText(err instanceof Error ? err.message : String(err))}\n`);
  process.exit(1);
}
