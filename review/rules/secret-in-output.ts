import { SECRET_PATTERNS } from '../../util/redact';
import { finding, Finding, Rule } from './types';


/** Finds the address of the resource (or top-level block) whose values contain `needle`. */
function addressAt(json: unknown, needle: string): string {
  let found = '';
  const walk = (v: unknown, pathParts: string[]): void => {
    if (found) return;
    if (typeof v === 'string') {
      if (v.includes(needle)) found = pathParts.join('.');
      return;
    }
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, [...pathParts, String(i)]));
    if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k.includes(needle)) found = [...pathParts, k].join('.');
        walk(x, [...pathParts, k]);
      }
    }
  };
  walk(json, []);
  const parts = found.split('.');
  if (parts[0] === 'resource' || parts[0] === 'data') {
    return parts[0] === 'data' ? `data.${parts[1]}.${parts[2]}` : `${parts[1]}.${parts[2]}`;
  }
  return parts.slice(0, 2).join('.') || '(stack)';
}

/** Scans a stack's synthesized text for secret-looking values; never prints the value itself. */
export function secretFindings(stack: string, text: string, json: unknown): Finding[] {
  // The secret shapes live in util/redact.ts, the one redaction step every printed string passes through.
  return SECRET_PATTERNS.flatMap(({ what, pattern }) => {
    pattern.lastIndex = 0;
    const match = pattern.exec(text);
    pattern.lastIndex = 0;
    if (!match) return [];
    const address = addressAt(json, match[0].replace(/\\"/g, '"').slice(0, 24));
    return [
      finding('secret-in-output', 'error', { stack, address },
        `${what} (redacted) is in the synthesized Terraform of ${stack}: it ends up in plans, state and CI logs`,
        'remove it from config/code; keep it in Secret Manager (HF token: `gcloud secrets versions add`) and mount it with the SecretProviderClass'),
    ];
  });
}

export const secretInOutput: Rule = {
  id: 'secret-in-output',
  summary: 'a secret-looking value (HF token, private key, cloud token) is in the synthesized Terraform',
  check: ({ texts }) => texts.flatMap((t) => secretFindings(t.stack, t.text, t.json)),
};
