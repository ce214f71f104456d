/**
 * What each stack's capacity costs per hour: idle (what is billed with no pod running) and while running (all of it
 * up), per pool, with the rate each TPU pool is priced at and why. Pure.
 *
 * - A reservation-bound TPU pool is priced at the table's `reservationRate` (a committed-use rate: TPU reservations
 *   require a CUD, https://cloud.google.com/tpu/docs/consumption-options) and is billed idle too: the reservation is
 *   paid for whether or not pods run.
 * - Spot, flex-start and on-demand pools that can sit at 0 nodes (flex-start pools autoscale 0..N; any pool with
 *   min 0) cost nothing idle; the while-running price stands beside it.
 */
import type { CpuPool, StackModel, TpuPool } from './model';
import { scalesFromZero } from './resources/container-node-pool';
import { cpuHourly, PriceTable, RATE_TEXT, TpuRate, tpuRateFor, tpuRates } from '../jobs/prices';

export interface PoolCost {
  readonly pool: TpuPool | CpuPool;
  readonly kind: 'tpu' | 'cpu';
  /** The rate a TPU pool is priced at. */
  readonly rate?: TpuRate;
  /** Why that rate (and whether it is an estimate). */
  readonly rateWhy?: string;
  readonly chipHour?: number;
  readonly estimate?: boolean;
  /** Hourly price with no pod running; undefined when the table lacks a price. */
  readonly idleHourly?: number;
  /** Hourly price with the pool at its full size. */
  readonly runningHourly?: number;
  readonly idleWhy: string;
}

export interface StackCost {
  readonly stack: string;
  readonly pools: readonly PoolCost[];
  readonly chips: number;
  readonly clusterFee: number;
  readonly idleHourly: number;
  readonly runningHourly: number;
  /** Pools the table has no price for. */
  readonly unpriced: readonly string[];
}

function tpuCost(p: TpuPool, prices: PriceTable): PoolCost {
  const { rate, why } = tpuRateFor(p, prices);
  const row = p.slice ? tpuRates(prices, p.slice.acceleratorType)?.[rate] : undefined;
  const running = row && p.slice ? row.chipHour * p.slice.chips : undefined;
  const idleFree = p.capacity !== 'reservation' && scalesFromZero(p);
  return {
    pool: p,
    kind: 'tpu',
    rate,
    rateWhy: why,
    chipHour: row?.chipHour,
    estimate: row?.estimate,
    runningHourly: running,
    idleHourly: running === undefined ? undefined : idleFree ? 0 : running,
    idleWhy: p.capacity === 'reservation'
      ? 'the reservation is billed whether or not pods run'
      : idleFree
        ? `scales from 0 (${p.autoscaling ? `autoscaling ${p.minNodes ?? 0}..${p.maxNodes ?? '?'}` : 'node_count 0'}): nothing billed while idle`
        : 'a fixed size: billed while the pool exists',
  };
}

function cpuCost(p: CpuPool, prices: PriceTable): PoolCost {
  const each = cpuHourly(prices, p.machineType, p.spot);
  const idleNodes = p.nodeCount ?? p.minNodes ?? 0;
  const maxNodes = p.nodeCount ?? p.maxNodes ?? idleNodes;
  return {
    pool: p,
    kind: 'cpu',
    runningHourly: each === undefined ? undefined : each * maxNodes,
    idleHourly: each === undefined ? undefined : each * idleNodes,
    idleWhy: p.nodeCount !== undefined ? `${p.nodeCount} fixed node(s)` : `autoscaled ${p.minNodes ?? 0}..${p.maxNodes ?? '?'}: idle at the minimum`,
  };
}

export function stackCost(m: StackModel, prices: PriceTable): StackCost {
  const pools = [...m.tpuPools.map((p) => tpuCost(p, prices)), ...m.cpuPools.map((p) => cpuCost(p, prices))];
  const clusterFee = m.controlPlanes.length * prices.clusterManagementFeePerHour;
  const sum = (f: (c: PoolCost) => number | undefined) => pools.reduce((s, c) => s + (f(c) ?? 0), 0) + clusterFee;
  return {
    stack: m.name,
    pools,
    chips: m.tpuPools.reduce((s, p) => s + (p.slice?.chips ?? 0), 0),
    clusterFee,
    idleHourly: sum((c) => c.idleHourly),
    runningHourly: sum((c) => c.runningHourly),
    unpriced: pools.filter((c) => c.runningHourly === undefined).map((c) => c.pool.name),
  };
}

export function rateText(c: PoolCost, prices: PriceTable): string {
  if (!c.rate) return '';
  const price = c.chipHour === undefined ? 'no price in the table' : `${prices.currency === 'USD' ? '$' : ''}${c.chipHour}/chip-h`;
  return `${RATE_TEXT[c.rate]} ${price}${c.estimate ? ' (estimate)' : ''}`;
}
