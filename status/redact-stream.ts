/**
 * The shared redaction (review/redact.ts) for a log stream: complete lines are redacted as they pass; a private key
 * block spread over lines is withheld from its BEGIN line to its END line.
 */
import { Transform } from 'stream';
import { redact } from '../review/redact';

const BEGIN = /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----/;
const END = /-----END (?:[A-Z]+ )*PRIVATE KEY-----/;

export function redactLines(): Transform {
  let partial = '';
  let inKey = false;
  const line = (l: string): string => {
    if (inKey) {
      if (END.test(l)) inKey = false;
      return '';
    }
    if (BEGIN.test(l) && !END.test(l)) {
      inKey = true;
      return `${redact(l)}\n`;
    }
    return `${redact(l)}\n`;
  };
  return new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      done(null, lines.map(line).join(''));
    },
    flush(done) {
      done(null, partial ? line(partial).replace(/\n$/, '') : '');
    },
  });
}
