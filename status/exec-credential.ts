/**
 * Runs the kubeconfig's exec credential plugin (gke-gcloud-auth-plugin) once, with a deadline, for all requests of a
 * client. @kubernetes/client-node 1.4 spawns the plugin itself (dist/exec_auth.js `ExecAuth.getCredential`): once per
 * request until one has answered (its cache is filled only then), with no timeout and no way to stop it, so a plugin
 * that hangs (waiting for a browser login, a metadata server that never answers) leaves one process per parallel
 * request behind and the request's deadline reads as a silent control plane. Here the plugin runs once, is killed at
 * the deadline, and its failure is a plugin failure.
 *
 * The plugin contract (client.authentication.k8s.io ExecCredential): the command with its args and env added to ours;
 * stdout is an ExecCredential whose `status.token` (and optional `status.expirationTimestamp`) is the credential; a
 * non-zero exit is a failure whose stderr says why.
 */
import { killedText, runBounded, silentExitText } from '../util/child-process';

export interface ExecConfig {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: ReadonlyArray<{ readonly name: string; readonly value: string }>;
}

export interface ExecToken {
  readonly token: string;
  /** Epoch ms the token expires at. @default - no expiry given */
  readonly expiresAt?: number;
}

/** Thrown when the plugin did not answer in time, exited non-zero, or printed no token. */
export class PluginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginError';
  }
}

/** Runs the plugin (util/child-process.ts runBounded); rejects with PluginError (or the spawn error, e.g. ENOENT) and kills it at `timeoutMs`. */
export async function execToken(exec: ExecConfig, timeoutMs: number): Promise<ExecToken> {
  const env = { ...process.env };
  for (const e of exec.env ?? []) env[e.name] = e.value;
  const plugin = `the credential plugin '${exec.command}'`;
  const run = await runBounded(exec.command, exec.args ?? [], { timeoutMs, env });
  if (run.timedOut) throw new PluginError(`${killedText(plugin, timeoutMs)}; run it by hand to see what it waits for (a login: gcloud auth login)`);
  if (run.code !== 0) throw new PluginError(run.stderr.trim() || `${plugin} ${silentExitText(run.code)}`);
  let status: { token?: unknown; expirationTimestamp?: unknown } | undefined;
  try {
    status = (JSON.parse(run.stdout) as { status?: typeof status }).status;
  } catch {
    throw new PluginError(`${plugin} printed no ExecCredential (not JSON)`);
  }
  if (typeof status?.token !== 'string' || !status.token) throw new PluginError(`${plugin} printed an ExecCredential without status.token`);
  const expiresAt = typeof status.expirationTimestamp === 'string' ? Date.parse(status.expirationTimestamp) : NaN;
  return { token: status.token, ...(Number.isFinite(expiresAt) ? { expiresAt } : {}) };
}
