/** The zone table (jobs/zones.ts): Compute Engine's regions and their zones, the one home config checks ZONE against. */
import { REGIONS, regionProblem, zoneProblem, zonesOf } from '../../jobs/zones';

test('a region has its zones, by letter; europe-west1 and us-east1 have no -a, us-central1 has -f, us-central2 (Cloud TPU) only -b', () => {
  expect(zonesOf('us-east5')).toEqual(['us-east5-a', 'us-east5-b', 'us-east5-c']);
  expect(zonesOf('europe-west1')).toEqual(['europe-west1-b', 'europe-west1-c', 'europe-west1-d']);
  expect(zonesOf('us-east1')).toEqual(['us-east1-b', 'us-east1-c', 'us-east1-d']);
  expect(zonesOf('us-central1')).toEqual(['us-central1-a', 'us-central1-b', 'us-central1-c', 'us-central1-f']);
  expect(zonesOf('us-central2')).toEqual(['us-central2-b']);
  expect(zonesOf('africa-south1')).toEqual(['africa-south1-a', 'africa-south1-b', 'africa-south1-c']);
  expect(zonesOf('mars-north1')).toBeUndefined();
  expect(zonesOf('constructor')).toBeUndefined();
  expect(REGIONS).toEqual([...REGIONS].sort());
  expect(REGIONS.length).toBe(43);
});

test('problems name the zones of the region, or the unknown region', () => {
  expect(zoneProblem('us-east5', 'us-east5-b')).toBeUndefined();
  expect(zoneProblem('us-east5', 'us-east5-z')).toBe("zone must be one of us-east5-a, us-east5-b, us-east5-c (the zones of region us-east5), got 'us-east5-z'");
  expect(zoneProblem('us-east5', 'us-central1-a')).toMatch(/got 'us-central1-a'$/);
  expect(zoneProblem('mars-north1', 'mars-north1-a')).toBeUndefined();
  expect(regionProblem('us-east5')).toBeUndefined();
  expect(regionProblem('mars-north1')).toBe("region must be a Compute Engine region of the zone table (jobs/zones.ts), got 'mars-north1'");
});
