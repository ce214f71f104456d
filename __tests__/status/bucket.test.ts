/**
 * status/bucket.ts (one object of the bucket through Cloud Storage's JSON API, with the gcloud login) and
 * status/eval.ts withEvalFiles (eval.json where the log has no EVAL_RESULT line), in process against a loopback server.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { gcloudToken, gcsReader, MAX_OBJECT_BYTES, parseGsUrl } from '../../status/bucket';
import { EvalRecord, ObjectReader, withEvalFiles } from '../../status/eval';

let server: http.Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});
async function serve(handler: http.RequestListener): Promise<string> {
  server = http.createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as { port: number }).port}`;
}
const reader = (endpoint: string, timeoutMs = 5000) => gcsReader({ endpoint, token: async () => 't0k', timeoutMs });

describe('gcsReader', () => {
  test('parseGsUrl: bucket and object; anything else is not a gs:// path', () => {
    expect(parseGsUrl('gs://b/a/eval.json')).toEqual({ bucket: 'b', object: 'a/eval.json' });
    expect(parseGsUrl('gs://b')).toBeUndefined();
    expect(parseGsUrl('s3://b/a')).toBeUndefined();
  });
  test('GET <endpoint>/storage/v1/b/<bucket>/o/<object encoded>?alt=media with the bearer token; the text back', async () => {
    const seen: string[] = [];
    const url = await serve((req, res) => {
      seen.push(`${req.url} ${req.headers.authorization}`);
      res.end('{"a":1}');
    });
    expect(await reader(`${url}/`)('gs://my-bucket/hf trained/r/eval.json')).toEqual({ text: '{"a":1}' });
    expect(seen).toEqual(['/storage/v1/b/my-bucket/o/hf%20trained%2Fr%2Feval.json?alt=media Bearer t0k']);
  });
  test('404: no text and no problem; 403: the role to ask for; 500: the code; too large: refused', async () => {
    const codes: Record<string, number> = { '/storage/v1/b/b/o/missing?alt=media': 404, '/storage/v1/b/b/o/denied?alt=media': 403, '/storage/v1/b/b/o/broken?alt=media': 500 };
    const url = await serve((req, res) => {
      if (req.url?.includes('/o/big')) return res.writeHead(200, { 'content-length': String(MAX_OBJECT_BYTES + 1) }).end('x'.repeat(MAX_OBJECT_BYTES + 1));
      return res.writeHead(codes[req.url ?? ''] ?? 200).end('{}');
    });
    const read = reader(url);
    expect(await read('gs://b/missing')).toEqual({});
    expect(await read('gs://b/denied')).toEqual({ problem: 'HTTP 403: your gcloud login may not read gs://b (roles/storage.objectViewer)' });
    expect(await read('gs://b/broken')).toEqual({ problem: 'HTTP 500 from Cloud Storage' });
    expect(await read('gs://b/big')).toEqual({ problem: `larger than ${MAX_OBJECT_BYTES} bytes` });
    expect(await read('not-a-path')).toEqual({ problem: 'not a gs:// object path' });
  });
  test('a server that never answers: the deadline, as a reason', async () => {
    const url = await serve(() => undefined);
    expect(await reader(url, 200)('gs://b/o')).toEqual({ problem: 'no answer within 0.2 s' });
  });
  test('no token: its reason, and no request', async () => {
    let requests = 0;
    const url = await serve((_, res) => (requests++, res.end('{}')));
    const read = gcsReader({ endpoint: url, token: () => Promise.reject(new Error('gcloud is not installed')), timeoutMs: 1000 });
    expect(await read('gs://b/o')).toEqual({ problem: 'gcloud is not installed' });
    expect(requests).toBe(0);
  });
});

describe('gcloudToken', () => {
  const script = (body: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-token-'));
    const file = path.join(dir, 'gcloud');
    fs.writeFileSync(file, `#!/bin/sh\necho "$@" >> ${JSON.stringify(path.join(dir, 'args'))}\n${body}\n`, { mode: 0o755 });
    return { file, args: () => fs.readFileSync(path.join(dir, 'args'), 'utf8') };
  };
  test('auth print-access-token, trimmed, run once however often asked', async () => {
    const g = script('echo "  ya29.tok  "');
    const token = gcloudToken(5000, g.file);
    expect(await token()).toBe('ya29.tok');
    expect(await token()).toBe('ya29.tok');
    expect(g.args()).toBe('auth print-access-token\n');
  });
  test('not installed, failing, or printing nothing: the reason', async () => {
    await expect(gcloudToken(5000, path.join(os.tmpdir(), 'no-such-gcloud-here'))()).rejects.toThrow('gcloud is not installed');
    await expect(gcloudToken(5000, script('echo "ERROR: not logged in" >&2; exit 1').file)()).rejects.toThrow('gcloud auth print-access-token failed: ERROR: not logged in');
    await expect(gcloudToken(5000, script('true').file)()).rejects.toThrow('gcloud auth print-access-token printed no token: gcloud auth login');
  });
  test('failing without a message, or killed at the deadline: the same wordings as the credential plugin (util/child-process.ts)', async () => {
    await expect(gcloudToken(5000, script('exit 4').file)()).rejects.toThrow('gcloud auth print-access-token failed: exited with 4 without a message');
    await expect(gcloudToken(300, script('exec sleep 600').file)()).rejects.toThrow(
      'gcloud auth print-access-token gave no answer within 0.3 s (killed); run it by hand to see what it waits for (a login: gcloud auth login)',
    );
  });
});

describe('withEvalFiles', () => {
  const record: EvalRecord = { evalJson: 'gs://b/x/eval.json', trainedModel: 'gs://b/x/', baseModel: 'm', samples: 5, seed: 1, image: 'i', results: [{ task: 't', metric: 'm', higherIsBetter: true, base: 0.1, trained: 0.2, delta: 0.1 }] };
  const file = JSON.stringify(record);
  const status = (state: string, run?: object) => ({ name: 'p', steps: [{ name: 'train', state: 'completed' }, { name: 'eval', state, ...(run ? { run } : {}) }] });
  const outputs = new Map([['p', 'gs://b/x/eval.json']]);
  const calls: string[] = [];
  const read = (answer: Awaited<ReturnType<ObjectReader>>): ObjectReader => async (url) => (calls.push(url), answer);
  beforeEach(() => (calls.length = 0));

  test('an ended eval step without a record gets the file; the other steps and the usage are kept', async () => {
    const usage = { chips: 8 };
    for (const state of ['completed', 'failed']) {
      const { statuses, notes } = await withEvalFiles([status(state, { usage, points: [] })], outputs, read({ text: file }));
      expect(statuses[0].steps[1]).toEqual({ name: 'eval', state, run: { usage, points: [], eval: record } });
      expect(statuses[0].steps[0]).toEqual({ name: 'train', state: 'completed' });
      expect(notes).toEqual([]);
    }
    expect((await withEvalFiles([status('completed')], outputs, read({ text: file }))).statuses[0].steps[1]).toEqual({ name: 'eval', state: 'completed', run: { points: [], eval: record } });
  });
  test('nothing read while the step runs, when the log had the record, or without an eval step or output', async () => {
    for (const s of [status('running'), status('completed', { points: [], eval: record }), { name: 'p', steps: [{ name: 'train', state: 'completed' }] }]) {
      const { statuses } = await withEvalFiles([s], outputs, read({ text: file }));
      expect(statuses[0]).toBe(s);
    }
    expect((await withEvalFiles([status('completed')], new Map(), read({ text: file }))).notes).toEqual([]);
    expect(calls).toEqual([]);
  });
  test('not found: a note for a completed step, none for a failed one (it may have failed before writing it)', async () => {
    expect((await withEvalFiles([status('completed')], outputs, read({}))).notes).toEqual(['p: eval.json gs://b/x/eval.json not read (not found); its log has no EVAL_RESULT line either']);
    expect((await withEvalFiles([status('failed')], outputs, read({}))).notes).toEqual([]);
    expect((await withEvalFiles([status('failed')], outputs, read({ problem: 'HTTP 500 from Cloud Storage' }))).notes).toEqual([
      'p: eval.json gs://b/x/eval.json not read (HTTP 500 from Cloud Storage); its log has no EVAL_RESULT line either',
    ]);
  });
});
