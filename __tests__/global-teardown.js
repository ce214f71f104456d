/** Jest globalTeardown: removes the run's folder (global-setup.js) and its bin/ from PATH. */
const fs = require('fs');
const path = require('path');

module.exports = async () => {
  const dir = process.env.TPT_JEST_RUN_DIR;
  if (dir && path.basename(dir).startsWith('tpt-jest-run-')) {
    fs.rmSync(dir, { recursive: true, force: true });
    const bin = path.join(dir, 'bin');
    process.env.PATH = (process.env.PATH || '').split(path.delimiter).filter((d) => d !== bin).join(path.delimiter);
  }
  delete process.env.TPT_JEST_RUN_DIR;
};
