/**
 * Jest globalSetup: one folder per run (TPT_JEST_RUN_DIR), removed by global-teardown.js, for what the test files
 * share within a run: the synthesized JSON (synth/, __tests__/util.ts cachedSynth) and the fact that dist/ was built
 * (__tests__/dist.ts). A new folder per run, so a watch-mode rerun after an edit never reads an old synthesis.
 *
 * python3 behind a version manager's shim (pyenv's is a bash script that runs `pyenv exec`: ~60 ms of CPU before the
 * interpreter starts) is linked to the interpreter the shim runs, in the run's bin/ first on PATH for the workers:
 * the same Python, started hundreds of times by the suites (stand-ins, the pipelines' scripts, config/python.ts).
 */
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

/** The python3 a bare `python3` runs (first on PATH), or undefined. */
function python3OnPath() {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    const file = path.join(dir || '.', 'python3');
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

function linkPython(dir) {
  const onPath = python3OnPath();
  if (!onPath) return;
  const r = spawnSync(onPath, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  const interpreter = r.status === 0 ? r.stdout.trim() : '';
  if (!interpreter || fs.realpathSync(interpreter) === fs.realpathSync(onPath)) return; // no shim
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.symlinkSync(interpreter, path.join(bin, 'python3'));
  process.env.PATH = `${bin}${path.delimiter}${process.env.PATH}`;
}

module.exports = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-jest-run-'));
  fs.mkdirSync(path.join(dir, 'synth'));
  process.env.TPT_JEST_RUN_DIR = dir;
  linkPython(dir);
};
