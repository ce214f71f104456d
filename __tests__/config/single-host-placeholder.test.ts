/** The example's disabled single-host block: its reservation is a placeholder once something turns the pool on. */
import { loadConfig } from '../../config/load';

const paths = (env: Record<string, string>) => loadConfig({ env }).placeholders.map((p) => `${p.path}=${p.value} (${p.env})`);

test('default: the disabled block builds no pool, so its placeholder reservation is not reported', () => {
  expect(loadConfig({ env: {} }).config.singleHost?.enabled).toBe(false);
  expect(paths({})).not.toContainEqual(expect.stringMatching(/^singleHost\./));
});

test("turned on with the example's own reservation name, it is reported with its variable", () => {
  expect(paths({ SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation' })).toContain('singleHost.reservation=my-v6e-8-reservation (SINGLE_HOST_RESERVATION)');
  expect(paths({ SINGLE_HOST_RESERVATION: 'acme-v6e-8' })).not.toContainEqual(expect.stringMatching(/^singleHost\./));
});
