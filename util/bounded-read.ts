/**
 * Reads a file with a bound on bytes and on time that holds whatever the path is: a regular file, a FIFO (process
 * substitution, `mkfifo`), a device (`/dev/zero` never ends, `/dev/stdin`), or a socket. `fs.statSync().size` is 0 for
 * all but regular files, so a size check before reading bounds nothing: this reads at most `maxBytes + 1` bytes and
 * refuses at the first byte over, and opens without blocking (a FIFO without a writer would block `open` forever) and
 * gives up when `timeoutMs` passes without the end of the data. Errors name the bound and the flag that sets it.
 */
import * as fs from 'fs';

export class BoundExceeded extends Error {}

export interface BoundedReadOptions {
  /** Most bytes read; one more is refused. */
  readonly maxBytes: number;
  /** What sets maxBytes, for the message (`--max-plan-mb`). */
  readonly limitName: string;
  /** How long to wait for the data to end. @default 60000 */
  readonly timeoutMs?: number;
  /** What sets the time bound, for the message. @default - a fixed bound */
  readonly timeoutName?: string;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

function mib(bytes: number): string {
  return `${Number((bytes / 2 ** 20).toFixed(2))} MiB`;
}

/** The bytes of `file`, bounded (see the module comment). @throws BoundExceeded naming the bound; fs errors as they come. */
export function readBounded(file: string, options: BoundedReadOptions): Buffer {
  const { maxBytes, limitName } = options;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    // Read in place: a regular file into one buffer of its size + 1 (the byte that shows it grew), anything else (its
    // size says nothing) into 1 MiB chunks; a file that grows goes on in chunks. Never more than maxBytes + 1 bytes.
    const stat = fs.fstatSync(fd);
    const chunkSize = (remaining: number) => Math.min(remaining, 1 << 20);
    const chunks: Buffer[] = [];
    let chunk = Buffer.allocUnsafe(stat.isFile() ? Math.min(maxBytes + 1, stat.size + 1) : chunkSize(maxBytes + 1));
    let filled = 0;
    let total = 0;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (filled === chunk.length) {
        chunks.push(chunk);
        chunk = Buffer.allocUnsafe(chunkSize(maxBytes + 1 - total));
        filled = 0;
      }
      let n: number;
      try {
        // At least one byte: total <= maxBytes here (one more is refused below).
        n = fs.readSync(fd, chunk, filled, Math.min(chunk.length - filled, maxBytes + 1 - total), null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        if (Date.now() > deadline) {
          throw new BoundExceeded(`${file}: no end of data after ${timeoutMs / 1000} s (${mib(total)} read)${options.timeoutName ? ` (${options.timeoutName})` : ''}: a FIFO or device whose writer does not finish; refused`);
        }
        Atomics.wait(sleeper, 0, 0, 20);
        continue;
      }
      if (n === 0) break;
      filled += n;
      total += n;
      if (total > maxBytes) {
        throw new BoundExceeded(`${file} is over the limit of ${mib(maxBytes)} (${limitName}): refused at the first byte over, rather than read in part`);
      }
    }
    chunks.push(chunk.subarray(0, filled));
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } finally {
    fs.closeSync(fd);
  }
}
