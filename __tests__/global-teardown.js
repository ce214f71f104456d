/** Jest globalTeardown: removes the run's folder (global-setup.js). */
const fs = require('fs');
const path = require('path');

module.exports = async () => {
  const dir = process.env.TPT_JEST_RUN_DIR;
  if (dir && path.basename(dir).startsWith('tpt-jest-run-')) fs.rmSync(dir, { recursive: true, force: true });
  delete process.env.TPT_JEST_RUN_DIR;
};
