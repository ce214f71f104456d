/**
 * The price table the cost section uses: a small dated JSON in the repo (`jobs/prices.json`), replaceable with
 * `--prices <file>` of the same shape (read by the CLI), checked with zod (a wrong type names the file and the key).
 * Pure. Machine shapes
 * come from `jobs/machines.ts`; TPU chips from `jobs/tpu.ts`. The report always names the table, its date and source,
 * and which rate each pool is priced at and why.
 */
import { jsonPath } from '../util/json-path';
import { z } from 'zod';
import type { CapacityType } from './capacity';
import { MACHINE_SHAPES, MachineShape } from './machines';
import BUILT_IN from './prices.json';

/** Price kinds of a TPU chip-hour. */
export const TPU_RATES = ['on-demand', 'commit-1y', 'commit-3y', 'spot', 'flex-start'] as const;
export type TpuRate = (typeof TPU_RATES)[number];

export const RATE_TEXT: Record<TpuRate, string> = {
  'on-demand': 'on-demand',
  'commit-1y': '1-year commitment',
  'commit-3y': '3-year commitment',
  spot: 'spot',
  'flex-start': 'flex-start',
};

const amount = z.number().finite().nonnegative();
const rateSchema = z.object({
  chipHour: amount,
  /** True when the number is not a published list price (spot and flex-start float). */
  estimate: z.boolean(),
  source: z.string().min(1),
}).strict();

const thresholdsSchema = z.object({
  /** A finding when a stack's TPU chips pass this. */
  stackChips: z.number().int().positive(),
  /** A finding when a stack's hourly price with all its capacity running passes this. */
  stackHourly: amount,
}).strict();

const schema = z.object({
  name: z.string().min(1),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'),
  currency: z.string().min(1),
  region: z.string().default(BUILT_IN.region),
  source: z.string().min(1),
  note: z.string().optional(),
  clusterManagementFeePerHour: amount.default(BUILT_IN.clusterManagementFeePerHour),
  /** TPU generation (`v6e`, the accelerator type's prefix) -> rate -> price. */
  tpu: z.record(z.string(), z.object(Object.fromEntries(TPU_RATES.map((r) => [r, rateSchema.optional()])) as Record<TpuRate, z.ZodOptional<typeof rateSchema>>).strict()),
  /** The rate a reservation-bound pool is priced at, and why. */
  reservationRate: z.object({ rate: z.enum(['commit-1y', 'commit-3y', 'on-demand']), why: z.string().min(1), source: z.string().min(1) }).strict(),
  /** Machine family (`n2`) -> price per vCPU-hour and per GiB-hour. */
  cpuFamilies: z.record(z.string(), z.object({ vcpuHour: amount, gibHour: amount }).strict()).default(BUILT_IN.cpuFamilies),
  /** Spot VM price as a fraction of on-demand. */
  spotCpuFactor: z.number().min(0).max(1).default(BUILT_IN.spotCpuFactor),
  thresholds: thresholdsSchema.default(BUILT_IN.thresholds),
}).strict();

export type Thresholds = z.infer<typeof thresholdsSchema>;
export type PriceTable = z.infer<typeof schema> & {
  /** Where the table came from (`jobs/prices.json (built-in)` or the override file). */
  readonly origin: string;
};

/** Parses a price table; throws naming the file and every bad key. */
export function parsePrices(raw: unknown, origin: string): PriceTable {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${jsonPath(i.path) || '(top level)'}: ${i.message}`);
    throw new Error(`price file ${origin}: ${issues.join('; ')} (see jobs/prices.json for the shape)`);
  }
  return { ...parsed.data, origin };
}

/** The built-in table (jobs/prices.json), or `table` (an override file's parsed table), with threshold overrides. */
export function loadPrices(table?: PriceTable, thresholds: Partial<Thresholds> = {}): PriceTable {
  const base = table ?? parsePrices(BUILT_IN, 'jobs/prices.json (built-in)');
  const defined = Object.fromEntries(Object.entries(thresholds).filter(([, v]) => v !== undefined));
  return { ...base, thresholds: { ...base.thresholds, ...defined } };
}

/** Memory per vCPU of the standard Compute Engine series suffixes. */
const GIB_PER_VCPU: Record<string, number> = { standard: 4, highmem: 8, highcpu: 1 };

/** vCPUs and memory of a machine type: the project's shape table, else the `<family>-<series>-<vcpus>` naming rule. */
export function shapeOf(machineType: string): MachineShape | undefined {
  const known = MACHINE_SHAPES[machineType];
  if (known) return known;
  const match = /^([a-z]\d[a-z]?)-(standard|highmem|highcpu)-(\d+)$/.exec(machineType);
  if (!match) return undefined;
  const vcpus = Number(match[3]);
  return { vcpus, memoryGib: vcpus * GIB_PER_VCPU[match[2]!]! };
}

/** Hourly price of one VM, or undefined when family or shape is unknown. */
export function cpuHourly(prices: PriceTable, machineType: string, spot = false): number | undefined {
  const shape = shapeOf(machineType);
  const family = prices.cpuFamilies[machineType.split('-')[0]!];
  if (!shape || !family) return undefined;
  const onDemand = shape.vcpus * family.vcpuHour + shape.memoryGib * family.gibHour;
  return spot ? onDemand * prices.spotCpuFactor : onDemand;
}

/** The table's row for a TPU accelerator type (`v6e-32` -> `v6e`). */
export function tpuRates(prices: PriceTable, acceleratorType: string): Partial<Record<TpuRate, z.infer<typeof rateSchema>>> | undefined {
  return prices.tpu[acceleratorType.split('-')[0]!];
}

/** `$1,234.56` */
export function money(prices: PriceTable, amount: number): string {
  const symbol = prices.currency === 'USD' ? '$' : `${prices.currency} `;
  return `${symbol}${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** The rate a TPU pool's chips are billed at, by where its capacity comes from (a pool that names none: on-demand). */
export function tpuRateFor(p: { readonly capacity: CapacityType | 'on-demand' }, prices: PriceTable): { rate: TpuRate; why: string } {
  switch (p.capacity) {
    case 'reservation':
      return { rate: prices.reservationRate.rate, why: `reservation: ${prices.reservationRate.why} (${prices.reservationRate.source})` };
    case 'spot':
      return { rate: 'spot', why: 'spot VMs (node_config.spot)' };
    case 'flex-start':
      return { rate: 'flex-start', why: 'flex-start (node_config.flex_start)' };
    default:
      return { rate: 'on-demand', why: 'no reservation, spot or flex-start' };
  }
}
