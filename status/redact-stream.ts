/**
 * The shared redaction (util/redact.ts) for a log stream: complete lines are redacted as they pass, and lose every
 * terminal control sequence (util/inert.ts stripControls: a log line cannot clear the screen or write the clipboard);
 * a private key block spread over lines is withheld from its BEGIN line to its END line.
 *
 * Linear and bounded: a chunk is searched for newlines once (the line so far is kept as a list of pieces, never
 * re-joined per chunk), and a line longer than MAX_LOG_LINE_CHARS keeps only its first MAX_LOG_LINE_CHARS + LOOKAHEAD
 * characters: those are redacted, the redacted text is cut at MAX_LOG_LINE_CHARS and the rest is counted, not kept,
 * so a secret that the cut crosses is redacted whole before the cut (secret shapes are far shorter than the lookahead;
 * a private key without its END on the line is redacted to the end by its pattern).
 */
import { StringDecoder } from 'string_decoder';
import { Transform } from 'stream';
import { redact } from '../util/redact';
import { stripControls } from '../util/inert';

const BEGIN = /-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----/;
const END = /-----END (?:[A-Z]+ )*PRIVATE KEY-----/;

/** The longest log line shown; the rest of a longer line is left out with a note of its length. */
export const MAX_LOG_LINE_CHARS = 64 * 1024;
/** Characters kept past the cut so a secret across it is still seen whole by the redaction. */
const LOOKAHEAD = 4 * 1024;

export function redactLines(maxLine = MAX_LOG_LINE_CHARS): Transform {
  const keep = maxLine + LOOKAHEAD;
  let pieces: string[] = [];
  let kept = 0;
  let dropped = 0;
  let inKey = false;
  const line = (l: string, more: number): string => {
    if (inKey) {
      if (END.test(l)) inKey = false;
      return '';
    }
    if (BEGIN.test(l) && !END.test(l)) inKey = true;
    const clean = stripControls(redact(l));
    if (more === 0 && clean.length <= maxLine) return `${clean}\n`;
    return `${clean.slice(0, maxLine)}… (line cut: ${clean.length - Math.min(clean.length, maxLine) + more} more characters left out)\n`;
  };
  const add = (piece: string) => {
    const room = keep - kept;
    if (room > 0) {
      pieces.push(piece.length > room ? piece.slice(0, room) : piece);
      kept += Math.min(piece.length, room);
    }
    dropped += Math.max(0, piece.length - Math.max(room, 0));
  };
  const take = (): string => {
    const out = line(pieces.join(''), dropped);
    pieces = [];
    kept = 0;
    dropped = 0;
    return out;
  };
  const decoder = new StringDecoder('utf8'); // a character split over two chunks stays one character
  return new Transform({
    transform(chunk: Buffer | string, _encoding, done) {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      let out = '';
      let from = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
        add(text.slice(from, nl));
        out += take();
        from = nl + 1;
      }
      if (from < text.length) add(text.slice(from));
      done(null, out);
    },
    flush(done) {
      add(decoder.end());
      done(null, kept || dropped ? take().replace(/\n$/, '') : '');
    },
  });
}
