/**
 * util/child-process.ts, the one bounded runner of helper commands (the status CLI's credential plugin and gcloud
 * token), case by case: a clean exit, a failing one, one the deadline kills, one that cannot start, output past its
 * bound, the environment it gets. The commands are small /bin/sh scripts; the one the deadline kills sleeps far longer
 * than its deadline, so the outcome does not depend on the machine's speed.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { killedText, runBounded, silentExitText } from '../../util/child-process';

const script = (body: string) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-run-')), 'cmd');
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
};

describe('runBounded', () => {
  test('a clean exit: code 0, its stdout and stderr, the arguments passed as they are (no shell)', async () => {
    const run = await runBounded(script('printf "%s|" "$@"; echo warn >&2'), ['a b', '$HOME', ''], { timeoutMs: 30_000 });
    expect(run).toEqual({ code: 0, timedOut: false, stdout: 'a b|$HOME||', stderr: 'warn\n' });
  });

  test('a failing exit: its code and stderr', async () => {
    expect(await runBounded(script('echo "ERROR: not logged in" >&2; exit 3'), [], { timeoutMs: 30_000 })).toEqual({ code: 3, timedOut: false, stdout: '', stderr: 'ERROR: not logged in\n' });
  });

  test('the deadline: killed, timedOut, no exit code', async () => {
    const run = await runBounded(script('echo started; exec sleep 600'), [], { timeoutMs: 300 });
    expect(run.timedOut).toBe(true);
    expect(run.code).toBeNull();
  });

  test('a command that cannot start rejects with the spawn error (ENOENT for a missing one)', async () => {
    await expect(runBounded(path.join(os.tmpdir(), 'no-such-command-here'), [], { timeoutMs: 30_000 })).rejects.toMatchObject({ code: 'ENOENT' });
  });

  test('output past its bound is read and dropped: @default 1 MiB of stdout, 64 KiB of stderr; overrides', async () => {
    const loud = script('head -c 3000000 /dev/zero | tr "\\0" o; head -c 200000 /dev/zero | tr "\\0" e >&2');
    const run = await runBounded(loud, [], { timeoutMs: 30_000 });
    expect([run.code, run.stdout.length, run.stderr.length]).toEqual([0, 1 << 20, 1 << 16]);
    expect(run.stdout).toBe('o'.repeat(1 << 20));
    const small = await runBounded(loud, [], { timeoutMs: 30_000, maxStdout: 10, maxStderr: 3 });
    expect([small.stdout, small.stderr]).toEqual(['oooooooooo', 'eee']);
  });

  test('@default the environment is this process\'s; env replaces it', async () => {
    const echo = script('printf "%s" "${TPT_RUN_TEST-unset}"');
    process.env.TPT_RUN_TEST = 'inherited';
    try {
      expect((await runBounded(echo, [], { timeoutMs: 30_000 })).stdout).toBe('inherited');
      expect((await runBounded(echo, [], { timeoutMs: 30_000, env: { PATH: process.env.PATH, TPT_RUN_TEST: 'given' } })).stdout).toBe('given');
      expect((await runBounded(echo, [], { timeoutMs: 30_000, env: { PATH: process.env.PATH } })).stdout).toBe('unset');
    } finally {
      delete process.env.TPT_RUN_TEST;
    }
  });
});

describe('the wordings every caller shows', () => {
  test('killedText names the command and the deadline in seconds', () => {
    expect(killedText("the credential plugin 'x'", 1500)).toBe("the credential plugin 'x' gave no answer within 1.5 s (killed)");
  });
  test('silentExitText: the code, or a signal', () => {
    expect(silentExitText(2)).toBe('exited with 2 without a message');
    expect(silentExitText(null)).toBe('exited with a signal without a message');
  });
});
