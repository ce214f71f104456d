/**
 * Kubernetes resource quantities: parse "500m", "8", "190Gi", "200G" into numbers for fit checks.
 * Pure; only the suffixes Kubernetes defines.
 */

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50 };
const DECIMAL: Record<string, number> = { k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };

/** Parses a memory quantity into bytes. Throws on anything Kubernetes would reject. */
export function parseBytes(quantity: string, field = 'memory'): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$/.exec(quantity);
  if (!match) {
    throw new Error(`${field} must be a Kubernetes quantity such as 64Gi or 200G, got '${quantity}'`);
  }
  const unit = match[2];
  const scale = unit === undefined ? 1 : (BINARY[unit] ?? DECIMAL[unit]);
  return Number(match[1]) * scale;
}

/** Parses a CPU quantity ("500m", "8", "0.5") into millicores. */
export function parseMillicores(quantity: string, field = 'cpu'): number {
  const match = /^(\d+(?:\.\d+)?)(m)?$/.exec(quantity);
  if (!match) {
    throw new Error(`${field} must be a Kubernetes CPU quantity such as 8 or 500m, got '${quantity}'`);
  }
  return match[2] === 'm' ? Number(match[1]) : Number(match[1]) * 1000;
}

/** Formats bytes as GiB with one decimal, for messages. */
export function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(1)}Gi`;
}
