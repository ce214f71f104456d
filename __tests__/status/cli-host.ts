/**
 * The status CLI in one process per test file instead of one per run (`useCliHost()` in a file's top level): the
 * compiled CLI (dist/status/cli.js) is loaded once by cli-host-child.js and each runCli/runCliOn of
 * bench/fake-kube-api.ts runs its `main` there with the run's arguments and environment. Loading the CLI
 * (@kubernetes/client-node above all) was ~0.5 s of the ~0.6 s of CPU of each run. What a run prints and returns is the
 * same; the credential plugin is still a process of its own. Suites about the process itself (deadlines that abandon a
 * request, hung plugins, FIFOs: status/hostile.test.ts, status/deadlines.test.ts) keep a fresh process per run, and
 * one test below the host's users compares a run through the host with a spawned one.
 */
import { ChildProcess, fork } from 'child_process';
import * as path from 'path';
import { CliRunner, Run, setCliRunner } from '../../bench/fake-kube-api';

const CHILD = path.join(__dirname, 'cli-host-child.js');

interface Answer {
  readonly id: number;
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A host process started on the first run; a host that died (its run failed) is replaced by the next run. */
class CliHost {
  private child: ChildProcess | undefined;
  private readonly pending = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();
  private next = 0;

  run(args: string[], env: Record<string, string>): Promise<Run> {
    const start = process.hrtime.bigint();
    const child = this.child ?? this.start();
    const id = this.next++;
    return new Promise<Answer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      child.send({ id, args, env });
    }).then((a) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      return { code: a.code, stdout: a.stdout, stderr: a.stderr, firstOutputMs: a.stdout ? ms : -1, totalMs: ms };
    });
  }

  /** Ends the host and waits for its exit (so it is reaped: its CPU counts in the run's, and no process outlives the file). */
  close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill();
    });
  }

  private start(): ChildProcess {
    let stderr = '';
    const child = fork(CHILD, [], { cwd: path.join(__dirname, '..', '..'), env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('message', (a: Answer) => {
      this.pending.get(a.id)?.resolve(a);
      this.pending.delete(a.id);
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      for (const p of this.pending.values()) p.reject(new Error(`the status CLI host exited (${signal ?? code}) during a run:\n${stderr}`));
      this.pending.clear();
    });
    this.child = child;
    return child;
  }
}

export interface CliHostOptions {
  /** Whether runCli and runCliOn run in the host too (false: only through the runner returned). @default true */
  readonly runCli?: boolean;
}

/**
 * Runs this file's status CLI runs (runCli, runCliOn) in one host process, started on the first run and ended after the
 * file; returns the runner, for runs with an environment of their own (exactly `env`).
 */
export function useCliHost(options: CliHostOptions = {}): CliRunner {
  const host = new CliHost();
  const run: CliRunner = (args, env) => host.run(args, env);
  if (options.runCli ?? true) beforeAll(() => setCliRunner(run));
  afterAll(() => {
    setCliRunner(undefined);
    return host.close();
  });
  return run;
}
