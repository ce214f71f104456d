/**
 * The program's one way to run a short helper command and wait for it without hanging: the command (no shell, no
 * stdin) killed with SIGKILL at a deadline, its output kept up to a bound, the outcome returned whole. The status CLI
 * runs its credential commands through it: the kubeconfig's exec plugin (status/exec-credential.ts, gke-gcloud-auth-
 * plugin) and `gcloud auth print-access-token` (status/bucket.ts). A command that waits for a browser login or a
 * metadata server that never answers must read as that command's failure, never as a silent API.
 */
import { spawn } from 'child_process';

/** How long the command may run, what it sees, and how much of its output is kept. */
export interface BoundedRunOptions {
  /** Milliseconds until the command is killed (SIGKILL). */
  readonly timeoutMs: number;
  /** The command's environment. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Characters of stdout kept (the rest is read and dropped). @default 1 MiB (1,048,576) */
  readonly maxStdout?: number;
  /** Characters of stderr kept. @default 64 KiB (65,536) */
  readonly maxStderr?: number;
}

/** How the command ended. */
export interface BoundedRun {
  /** Exit code; null when a signal ended it (the deadline's SIGKILL included). */
  readonly code: number | null;
  /** Whether the deadline killed it. */
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/** `what gave no answer within N s (killed)`: how a command the deadline killed is named, one wording for every caller. */
export function killedText(what: string, timeoutMs: number): string {
  return `${what} gave no answer within ${timeoutMs / 1000} s (killed)`;
}

/** `exited with <code> without a message`: a command that failed and wrote nothing to stderr. */
export function silentExitText(code: number | null): string {
  return `exited with ${code ?? 'a signal'} without a message`;
}

/**
 * Runs `command args`; resolves when it has exited and its output is read, or at the deadline (killed, `timedOut`).
 * Rejects only when it cannot be started (the spawn error as Node gives it, e.g. `code: 'ENOENT'` for a missing one).
 */
export function runBounded(command: string, args: readonly string[], options: BoundedRunOptions): Promise<BoundedRun> {
  const maxStdout = options.maxStdout ?? 1 << 20;
  const maxStderr = options.maxStderr ?? 1 << 16;
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
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
      finish(() => resolve({ code: null, timedOut: true, stdout, stderr }));
    }, options.timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => void (stdout.length < maxStdout && (stdout += d.slice(0, maxStdout - stdout.length))));
    child.stderr.setEncoding('utf8').on('data', (d: string) => void (stderr.length < maxStderr && (stderr += d.slice(0, maxStderr - stderr.length))));
    child.on('error', (err) => finish(() => reject(err)));
    child.on('close', (code) => finish(() => resolve({ code, timedOut: false, stdout, stderr })));
  });
}

/** A command left running in the background (a tunnel), and the line of its stdout that said it is ready. */
export interface Background {
  /** The match of `ready` in its stdout. */
  readonly ready: RegExpExecArray;
  /** Ends it (SIGTERM, once; nothing when it has ended already). */
  readonly stop: () => void;
}

/**
 * Starts `command args` and resolves once its stdout matches `ready` (a tunnel's "Forwarding from ..." line), leaving it
 * running until `stop`; rejects, the command killed, when it exits first (with its stderr), at the deadline, or when it
 * cannot be started (`ENOENT` as Node gives it). `npm run retry` runs `kubectl port-forward` through it (status/retry.ts).
 */
export function startBackground(command: string, args: readonly string[], options: { readonly timeoutMs: number; readonly env?: NodeJS.ProcessEnv; readonly ready: RegExp }): Promise<Background> {
  const child = spawn(command, [...args], { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    const timer = setTimeout(() => settle(() => {
      stop();
      reject(new Error(`${killedText(`${command} ${args.join(' ')}`, options.timeoutMs)}${err.trim() ? `: ${err.trim().slice(0, 500)}` : ''}`));
    }), options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      out = (out + chunk.toString('utf8')).slice(-(1 << 16));
      const m = options.ready.exec(out);
      if (m) settle(() => resolve({ ready: m, stop }));
    });
    child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString('utf8')).slice(-(1 << 16))));
    child.on('error', (e) => settle(() => reject(e)));
    child.on('exit', (code) => settle(() => reject(new Error(`${command} exited ${code ?? 'on a signal'}: ${err.trim().slice(0, 500) || out.trim().slice(0, 500) || 'no output'}`))));
  });
}
