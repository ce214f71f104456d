/**
 * Jest globalSetup: one folder per run (TPT_JEST_RUN_DIR), removed by global-teardown.js, for what the test files
 * share within a run: the synthesized JSON (synth/, __tests__/util.ts cachedSynth) and the fact that dist/ was built
 * (__tests__/dist.ts). A new folder per run, so a watch-mode rerun after an edit never reads an old synthesis.
 */
const fs = require('fs');
const os = require('os');
const path = require('path');

module.exports = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-jest-run-'));
  fs.mkdirSync(path.join(dir, 'synth'));
  process.env.TPT_JEST_RUN_DIR = dir;
};
