/** `helm_release`: chart and version, and the Kueue ClusterQueue TPU quota (values, `set`, or the local chart). */
import type * as Yaml from 'yaml';
import { TPU_RESOURCE } from '../../jobs/tpu';
import { arrow, isObj, list, num, str, TfResource } from '../values';
import type { ChangeContext, ExtractContext, ResourceDescriber } from './types';

/** The facts this describer adds to a stack's model and reads of a change (review/model.ts StackFacts). */
type Facts = { readonly kueue: readonly KueueQuota[] };

export interface KueueQuota {
  readonly stack: string;
  readonly address: string;
  /** Nominal `google.com/tpu` quota summed over flavors; undefined when not found. */
  readonly tpuChips?: number;
}

/** Finds `{name: google.com/tpu, nominalQuota}` entries anywhere in a values tree. */
function tpuQuotaIn(value: unknown): number | undefined {
  let total: number | undefined;
  const visit = (v: unknown) => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!isObj(v)) return;
    if (v.name === TPU_RESOURCE && v.nominalQuota !== undefined) {
      total = (total ?? 0) + (num(v.nominalQuota) ?? 0);
      return;
    }
    Object.values(v).forEach(visit);
  };
  visit(value);
  return total;
}

/**
 * A values text's documents. Synthesized values are JSON (cdktf writes them with JSON.stringify), which YAML 1.2 reads
 * as JSON does (duplicate keys: the last; big numbers as doubles; `__proto__` an own key): JSON.parse reads them, and
 * the `yaml` package is loaded only for other text (a chart's values.yaml).
 */
function parseYamlValues(text: string): unknown[] {
  if (/^\s*[{[]/.test(text)) {
    try {
      return [JSON.parse(text) as unknown];
    } catch {
      // not JSON: YAML below
    }
  }
  try {
    const { parseAllDocuments } = require('yaml') as typeof Yaml;
    return parseAllDocuments(text).map((d) => d.toJS() as unknown);
  } catch {
    return [];
  }
}

function kueueQuota(r: TfResource, { stack, readChart }: ExtractContext): KueueQuota | undefined {
  const chart = str(r.attrs.chart) ?? '';
  const text = JSON.stringify(r.attrs);
  const docs = list(r.attrs.values).flatMap((v) => (typeof v === 'string' ? parseYamlValues(v) : [v]));
  let tpu = tpuQuotaIn(docs);
  if (tpu === undefined) {
    for (const s of list(r.attrs.set).filter(isObj)) {
      if (/tpu/i.test(String(s.name)) && /quota|chips/i.test(String(s.name))) tpu = num(s.value) ?? tpu;
    }
  }
  const files = !/kueue|queue/i.test(`${chart} ${text}`) ? undefined : readChart?.(chart);
  if (tpu === undefined && files) {
    tpu = tpuQuotaIn(parseYamlValues(files.values ?? ''));
    for (const t of files.templates ?? []) {
      const literal = /name:\s*["']?google\.com\/tpu["']?\s*\n\s*nominalQuota:\s*["']?(\d+)/.exec(t);
      if (tpu === undefined && literal) tpu = Number(literal[1]);
    }
  }
  // The Kueue chart's own values name ClusterQueue only as a controller concurrency key; quota objects have these.
  const mentionsClusterQueue = /nominalQuota|resourceGroups/.test(text) || tpu !== undefined;
  if (!mentionsClusterQueue && !(files?.templates ?? []).some((t) => /ClusterQueue/.test(t))) return undefined;
  return { stack, address: r.address, tpuChips: tpu };
}

function describe({ b, a, verb, name, before, after }: ChangeContext<Facts>): string[] {
  const release = (v: unknown) => (isObj(v) ? `${String(v.chart ?? '?')}${v.version ? `@${String(v.version)}` : ''}` : '');
  const rname = String((isObj(after) ? after.name : isObj(before) ? before.name : name) ?? name);
  if (verb) return [`Helm release ${rname} ${verb}: ${release(after ?? before)}`];
  const v = arrow('chart', release(before), release(after));
  const quota = arrow('Kueue TPU quota', b?.kueue[0]?.tpuChips, a?.kueue[0]?.tpuChips);
  const values = JSON.stringify(isObj(before) ? before.values : '') !== JSON.stringify(isObj(after) ? after.values : '');
  const parts = [v, quota, values && !quota ? 'values changed' : undefined].filter(Boolean);
  return [`Helm release ${rname}: ${parts.join(', ') || 'settings changed'}`];
}

export const helmRelease: ResourceDescriber<Facts> = {
  types: ['helm_release'],
  extract: (r, ctx) => {
    const q = kueueQuota(r, ctx);
    return q ? { kueue: [q] } : {};
  },
  describe,
};
