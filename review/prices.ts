/**
 * The price table the capacity section uses: a small dated JSON in the repo (`review/prices.json`),
 * replaceable with `--prices <file>` of the same shape. Machine shapes come from `jobs/machines.ts`;
 * TPU chips from `jobs/tpu.ts`. The report always names the table, its date and source.
 */
import * as fs from 'fs';
import { MACHINE_SHAPES, MachineShape } from '../jobs/machines';
import type { TpuCapacityKind } from './model';
import BUILT_IN from './prices.json';

export type TpuCapacityPrice = TpuCapacityKind;

export interface PriceTable {
  readonly name: string;
  readonly date: string;
  readonly currency: string;
  readonly region: string;
  readonly source: string;
  readonly note?: string;
  readonly clusterManagementFeePerHour: number;
  /** TPU generation (`v6e`) -> capacity kind -> price per chip-hour. */
  readonly tpuChipHour: Readonly<Record<string, Partial<Record<TpuCapacityPrice, number>>>>;
  /** Machine family (`n2`) -> price per vCPU-hour and per GiB-hour. */
  readonly cpuFamilies: Readonly<Record<string, { vcpuHour: number; gibHour: number }>>;
  /** Spot VM price as a fraction of on-demand. */
  readonly spotCpuFactor: number;
  /** Where the table came from (`built-in` or the override file). */
  readonly origin?: string;
}

/** Loads the built-in table or an override file; the override must carry name/date/source too. */
export function loadPrices(file?: string): PriceTable {
  if (!file) return { ...(BUILT_IN as PriceTable), origin: 'review/prices.json (built-in)' };
  const table = JSON.parse(fs.readFileSync(file, 'utf8')) as PriceTable;
  for (const key of ['date', 'source', 'tpuChipHour', 'cpuFamilies'] as const) {
    if (table[key] === undefined) throw new Error(`price file ${file} must have a '${key}' field (see review/prices.json)`);
  }
  return { ...(BUILT_IN as PriceTable), ...table, origin: file };
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

/** Price per chip-hour for a TPU accelerator type (`v6e-32`) and capacity kind. */
export function tpuChipHourly(prices: PriceTable, acceleratorType: string, capacity: TpuCapacityPrice): number | undefined {
  const generation = acceleratorType.split('-')[0]!;
  const row = prices.tpuChipHour[generation];
  return row?.[capacity] ?? row?.['on-demand'];
}

/** `$1,234.56` */
export function money(prices: PriceTable, amount: number): string {
  const symbol = prices.currency === 'USD' ? '$' : `${prices.currency} `;
  return `${symbol}${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}
