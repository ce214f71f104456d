/** Two TPU pools Kueue and the scheduler could not tell apart are refused (they select on accelerator + topology only). */
import { loadConfig } from '../../config/load';
import { platformFromConfig } from '../../config/platform';

test('a 2x4 main slice on ct6e-standard-4t next to the single-host ct6e-standard-8t 2x4 pool is a config error', () => {
  const loaded = loadConfig({ env: { TOPOLOGY: '2x4', SINGLE_HOST_RESERVATION: 'acme-v6e-8' } });
  expect(() => platformFromConfig(loaded)).toThrow(
    "TOPOLOGY (env): ct6e-standard-4t 2x4 and the single-host pool's ct6e-standard-8t 2x4 carry the same node labels (tpu-v6e-slice, 2x4): " +
      "Kueue and the scheduler could not tell the two shapes apart, so either could take the other's quota and nodes; choose another TOPOLOGY, or drop SINGLE_HOST_RESERVATION / SINGLE_HOST_CAPACITY",
  );
});

test('shapes with different labels are fine together', () => {
  const platform = platformFromConfig(loadConfig({ env: { TOPOLOGY: '4x4', SINGLE_HOST_RESERVATION: 'acme-v6e-8' } }));
  expect(platform.tpuGroups.map((g) => `${g.slice.machineType} ${g.slice.topology}`)).toEqual(['ct6e-standard-4t 4x4', 'ct6e-standard-8t 2x4']);
});
