/**
 * Registers cdktf's jest matchers (toHaveResourceWithProperties, ...; types in matchers.d.ts), loading cdktf only when
 * a test first calls one: jest gives every test file its own module registry, and most files never use them, so
 * requiring cdktf here cost each of them cdktf's whole module graph (~0.2 s of CPU a file).
 */
const NAMES = [
  'toHaveResource',
  'toHaveResourceWithProperties',
  'toHaveDataSource',
  'toHaveDataSourceWithProperties',
  'toHaveProvider',
  'toHaveProviderWithProperties',
  'toBeValidTerraform',
  'toPlanSuccessfully',
];

let cdktfMatchers;
/** cdktf's matchers as Testing.setupJest() hands them to expect.extend, captured instead of registered. */
function loadCdktfMatchers() {
  if (cdktfMatchers) return cdktfMatchers;
  const extend = expect.extend;
  let captured;
  expect.extend = (matchers) => (captured = matchers);
  try {
    require('cdktf').Testing.setupJest();
  } finally {
    expect.extend = extend;
  }
  const names = Object.keys(captured ?? {}).sort();
  if (names.join() !== [...NAMES].sort().join()) throw new Error(`__tests__/setup.js lists cdktf's jest matchers as ${NAMES.join(', ')}; cdktf registers ${names.join(', ')}`);
  return (cdktfMatchers = captured);
}

expect.extend(
  Object.fromEntries(
    NAMES.map((name) => [
      name,
      function (...args) {
        return loadCdktfMatchers()[name].apply(this, args);
      },
    ]),
  ),
);
