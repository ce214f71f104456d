/**
 * The zone table: the one place in the project that knows which zones a Google Cloud region has, one row per region.
 * Config refuses a ZONE that is not a zone of REGION at synth (config/schema.ts); whether the zone offers the TPU
 * machine type is checked at plan time against the Compute API (constructs/preflight.ts AcceleratorZoneChecks), since
 * TPU availability changes more often than the zones do.
 *
 * Source: Compute Engine "Regions and zones" (cloud.google.com/compute/docs/regions-zones, the table "Available regions
 * and zones"), which `gcloud compute zones list` returns; GKE "Cluster and node pool locations" uses the same zones.
 * `us-central2` (zone `us-central2-b`) is a Cloud TPU region that the Compute table does not list; it is kept because
 * Cloud TPU "TPU regions and zones" names it. AI zones (`<region>-ai<n><letter>`) are not listed. Adding a zone is one
 * entry here plus a test. Pure: no cdktf import.
 */

const abc = ['a', 'b', 'c'] as const;

/** Zone letters per region (`<region>-<letter>`). */
const ZONE_LETTERS: Readonly<Record<string, readonly string[]>> = {
  'africa-south1': abc,
  'asia-east1': abc,
  'asia-east2': abc,
  'asia-northeast1': abc,
  'asia-northeast2': abc,
  'asia-northeast3': abc,
  'asia-south1': abc,
  'asia-south2': abc,
  'asia-southeast1': abc,
  'asia-southeast2': abc,
  'australia-southeast1': abc,
  'australia-southeast2': abc,
  'europe-central2': abc,
  'europe-north1': abc,
  'europe-north2': abc,
  'europe-southwest1': abc,
  'europe-west1': ['b', 'c', 'd'],
  'europe-west2': abc,
  'europe-west3': abc,
  'europe-west4': abc,
  'europe-west6': abc,
  'europe-west8': abc,
  'europe-west9': abc,
  'europe-west10': abc,
  'europe-west12': abc,
  'me-central1': abc,
  'me-central2': abc,
  'me-west1': abc,
  'northamerica-northeast1': abc,
  'northamerica-northeast2': abc,
  'northamerica-south1': abc,
  'southamerica-east1': abc,
  'southamerica-west1': abc,
  'us-central1': ['a', 'b', 'c', 'f'],
  'us-central2': ['b'],
  'us-east1': ['b', 'c', 'd'],
  'us-east4': abc,
  'us-east5': abc,
  'us-south1': abc,
  'us-west1': abc,
  'us-west2': abc,
  'us-west3': abc,
  'us-west4': abc,
};

/** Every region of the table, sorted. */
export const REGIONS: readonly string[] = Object.keys(ZONE_LETTERS).sort();

/** The zones of a region, or undefined when the table has no such region. */
export function zonesOf(region: string): readonly string[] | undefined {
  return Object.prototype.hasOwnProperty.call(ZONE_LETTERS, region) ? ZONE_LETTERS[region].map((l) => `${region}-${l}`) : undefined;
}

/** Why `region` is not a region of the table, or undefined when it is. */
export function regionProblem(region: string): string | undefined {
  return zonesOf(region) ? undefined : `region must be a Compute Engine region of the zone table (jobs/zones.ts), got '${region}'`;
}

/** Why `zone` is not a zone of `region` (a region of the table), or undefined when it is: the message names its zones. */
export function zoneProblem(region: string, zone: string): string | undefined {
  const zones = zonesOf(region);
  if (!zones || zones.includes(zone)) return undefined;
  return `zone must be one of ${zones.join(', ')} (the zones of region ${region}), got '${zone}'`;
}
