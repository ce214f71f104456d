/** Jest globalTeardown: removes the run's synthesis cache folder (global-setup.js). */
const fs = require('fs');
const path = require('path');

module.exports = async () => {
  const dir = process.env.TPT_SYNTH_CACHE;
  if (dir && path.basename(dir).startsWith('tpt-synth-cache-')) fs.rmSync(dir, { recursive: true, force: true });
  delete process.env.TPT_SYNTH_CACHE;
};
