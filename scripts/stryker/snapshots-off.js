// Mutation runs only (stryker.config.mjs): snapshots are a tripwire, not an assertion of behaviour, so under
// Stryker `toMatchSnapshot` passes without comparing and a mutant only a snapshot would catch survives. Never loaded
// by `npm test`.
expect.extend({
  toMatchSnapshot() {
    return { pass: true, message: () => 'snapshots are not compared in mutation runs' };
  },
});
