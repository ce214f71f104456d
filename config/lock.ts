/**
 * Reads the lock of external facts (jobs/lock.ts), `post-training.lock.json` at the repository root: config/ is the
 * only layer that reads files. No lock file is no lock (each unlocked fact a note, refused with `requireLock`); a lock
 * that does not parse or validate is refused, naming each entry and JSON path, whatever `requireLock` says: a
 * hand-edited or truncated lock must never pin an image silently to something else.
 */
import * as fs from 'fs';
import * as path from 'path';
import { LOCK_FILE, LockFacts, MAX_LOCK_BYTES, parseLock } from '../jobs/lock';
import { ConfigError } from './load';

/** The lock at `<repoRoot>/post-training.lock.json`: `{file}` alone when there is none. Throws ConfigError on a bad lock. */
export function readLock(repoRoot: string, file: string = LOCK_FILE): LockFacts {
  const absolute = path.resolve(repoRoot, file);
  let text: string;
  try {
    const stat = fs.statSync(absolute);
    if (!stat.isFile()) throw new ConfigError([`${file}: is not a regular file; it must be the lock \`npm run lock\` writes`]);
    if (stat.size > MAX_LOCK_BYTES) throw new ConfigError([`${file}: is ${stat.size} bytes; at most ${MAX_LOCK_BYTES} are read`]);
    text = fs.readFileSync(absolute, 'utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { file };
    throw new ConfigError([`${file}: cannot read the lock: ${(err as Error).message}`]);
  }
  const parsed = parseLock(text, file);
  if (!parsed.lock) throw new ConfigError(parsed.problems);
  return { lock: parsed.lock, file };
}
