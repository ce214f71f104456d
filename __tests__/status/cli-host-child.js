/**
 * The compiled status CLI (dist/status/cli.js) loaded once, run many times: the child process of __tests__/status/cli-host.ts.
 * Each request ({ id, args, env } over Node's IPC channel) runs `main(args, io)` as `node dist/status/cli.js <args>`
 * would, one at a time: process.env is exactly the run's env (what a spawned CLI would get, and what the credential
 * plugin inherits), and everything the run writes, through its io or straight to process.stdout/stderr, is its output.
 * An uncaught error or unhandled rejection ends this process (Node's default), so the run fails as a spawned CLI would.
 */
const path = require('path');
const { Writable } = require('stream');

const cli = require(path.join(__dirname, '..', '..', 'dist', 'status', 'cli.js'));

let current; // { stdout: Buffer[], stderr: Buffer[] } of the run in progress
const sink = (name) =>
  new Writable({
    write(chunk, encoding, done) {
      current?.[name].push(Buffer.from(chunk, encoding));
      done();
    },
  });
for (const name of ['stdout', 'stderr']) {
  const write = process[name].write.bind(process[name]);
  process[name].write = (chunk, encoding, done) => {
    if (!current) return write(chunk, encoding, done);
    current[name].push(Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8'));
    if (typeof encoding === 'function') encoding();
    else if (typeof done === 'function') done();
    return true;
  };
}

async function run({ args, env }) {
  for (const k of Object.keys(process.env)) delete process.env[k];
  Object.assign(process.env, env);
  current = { stdout: [], stderr: [] };
  const out = current;
  const code = await cli.main(args, { stdout: sink('stdout'), stderr: sink('stderr'), env: process.env });
  current = undefined;
  return { code, stdout: Buffer.concat(out.stdout).toString('utf8'), stderr: Buffer.concat(out.stderr).toString('utf8') };
}

let queue = Promise.resolve();
process.on('message', (request) => {
  queue = queue.then(async () => process.send({ id: request.id, ...(await run(request)) }));
});
