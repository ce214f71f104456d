/**
 * A JSON number whose text a double does not keep (`9007199254740993`, Terraform's 310-digit `1e309`, `1.0`): the
 * plan reader (review/json-scan.ts parsePlanJson; util/ so that the shared redaction reads it too) keeps it as written, so it compares and shows as Terraform wrote it,
 * never as the nearest double (2^53+1 would equal 2^53, 1e309 would be Infinity and print as `null`).
 */
export class ExactNumber {
  constructor(readonly text: string) {}
  /** JSON.stringify shows the text as written (quoted: JSON has no way to write it unquoted from JavaScript). */
  toJSON(): string {
    return this.text;
  }
  toString(): string {
    return this.text;
  }
}
