/**
 * Jest globalSetup: one folder per run for the synthesized JSON the test files share (__tests__/util.ts
 * cachedSynth), removed by global-teardown.js. A new folder per run, so a watch-mode rerun after an edit never reads
 * an old synthesis.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');

module.exports = async () => {
  process.env.TPT_SYNTH_CACHE = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-synth-cache-'));
};
