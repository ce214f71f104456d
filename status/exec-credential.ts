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
import { spawn } from 'child_process';

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

/** Runs the plugin; rejects with PluginError (or the spawn error, e.g. ENOENT) and kills it at `timeoutMs`. */
export function execToken(exec: ExecConfig, timeoutMs: number): Promise<ExecToken> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    for (const e of exec.env ?? []) env[e.name] = e.value;
    const child = spawn(exec.command, [...(exec.args ?? [])], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let done = false;
    const finish = (f: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      f();
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(() => reject(new PluginError(`the credential plugin '${exec.command}' gave no answer within ${timeoutMs / 1000} s (killed); run it by hand to see what it waits for (a login: gcloud auth login)`)));
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d.slice(0, 1 << 20)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d.slice(0, 1 << 16)));
    child.on('error', (err) => finish(() => reject(err)));
    child.on('close', (code) =>
      finish(() => {
        if (code !== 0) return reject(new PluginError(stderr.trim() || `the credential plugin '${exec.command}' exited with ${code ?? 'a signal'} without a message`));
        let status: { token?: unknown; expirationTimestamp?: unknown } | undefined;
        try {
          status = (JSON.parse(stdout) as { status?: typeof status }).status;
        } catch {
          return reject(new PluginError(`the credential plugin '${exec.command}' printed no ExecCredential (not JSON)`));
        }
        if (typeof status?.token !== 'string' || !status.token) return reject(new PluginError(`the credential plugin '${exec.command}' printed an ExecCredential without status.token`));
        const expiresAt = typeof status.expirationTimestamp === 'string' ? Date.parse(status.expirationTimestamp) : NaN;
        resolve({ token: status.token, ...(Number.isFinite(expiresAt) ? { expiresAt } : {}) });
      }),
    );
  });
}
