/**
 * Entry point (cdktf.json runs the compiled dist/main.js): load config -> build every stack -> synth.
 * Deploy one stack with `cdktf deploy infra` or `cdktf deploy <pipeline>`.
 */
import { loadConfig } from './config/load';
import { composeApp } from './stacks/app';

try {
  const { app, notices } = composeApp(loadConfig());
  // Notices (unread tutorial variables, pipelines left out, tight fits) go to stderr, one line each, once.
  for (const notice of notices) process.stderr.write(`note: ${notice}\n`);
  app.synth();
} catch (err) {
  // Config and recipe errors are for the user, not a stack trace: print the message, write nothing.
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
