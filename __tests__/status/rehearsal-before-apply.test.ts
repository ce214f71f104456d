/**
 * What the deploy says before its apply (status/rehearsal.ts rehearsalBeforeApply, status/bucket.ts gcsLister): the
 * answer for each kind of rehearsal check, and the listing's paging, bounds and failures against a loopback Cloud
 * Storage stand-in. The whole deploy path: __tests__/environments/deploy-rehearsal.test.ts.
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import { gcsLister, MAX_LIST_PAGES } from '../../status/bucket';
import { rehearsalBeforeApply } from '../../status/rehearsal';
import { rehearsalUnavailableText, rehearsalVerdictTexts, RehearsalProof } from '../../jobs/rehearsal';

const proof: RehearsalProof = {
  pipeline: 'rl-qwen3',
  key: '0123456789ab',
  bucket: 'acme-ckpt',
  exact: 'm/hf-trained/rehearse-rl-1/k/eval.json',
  glob: 'm/hf-trained/rehearse-rl-*/*/eval.json',
  command: 'npm run deploy -- rehearse-rl-qwen3',
  imagesPinnedBy: 'tag',
};
const t = rehearsalVerdictTexts(proof);

describe('rehearsalBeforeApply', () => {
  const listing = (names: string[] | { problem: string }) => async () => (Array.isArray(names) ? { names } : names);

  test('passed, stale, none; requireRehearsal said; the proof listed is the bucket and glob of the plan', async () => {
    const asked: string[] = [];
    const lines = await rehearsalBeforeApply([{ name: 'rl-qwen3', rehearsalCheck: { proof, required: true } }], async (bucket, glob) => {
      asked.push(`${bucket} ${glob}`);
      return { names: [proof.exact] };
    });
    expect(lines).toEqual([`Rehearsal of rl-qwen3 (before the apply): ${t.passed}; requireRehearsal: the plan fails without it`]);
    expect(asked).toEqual([`acme-ckpt ${proof.glob}`]);
    expect(await rehearsalBeforeApply([{ name: 'rl-qwen3', rehearsalCheck: { proof, required: false } }], listing(['other']))).toEqual([`Rehearsal of rl-qwen3 (before the apply): ${t.stale}`]);
    expect(await rehearsalBeforeApply([{ name: 'rl-qwen3', rehearsalCheck: { proof, required: false } }], listing([]))).toEqual([`Rehearsal of rl-qwen3 (before the apply): ${t.none}`]);
  });

  test('cannot be rehearsed on this infra: the output\'s own text, nothing listed; no check at all: said', async () => {
    const never = async () => {
      throw new Error('listed');
    };
    expect(await rehearsalBeforeApply([{ name: 'rl-qwen3', rehearsalCheck: { unavailable: 'no single-host pool of v6e' } }], never)).toEqual([
      `Rehearsal of rl-qwen3 (before the apply): ${rehearsalUnavailableText('rl-qwen3', 'no single-host pool of v6e')}`,
    ]);
    expect(await rehearsalBeforeApply([{ name: 'x' }], never)).toEqual(['Rehearsal of x (before the apply): none: not a pipeline that can be rehearsed']);
  });

  test('a listing that fails: not known, with why', async () => {
    expect(await rehearsalBeforeApply([{ name: 'rl-qwen3', rehearsalCheck: { proof, required: false } }], listing({ problem: 'gcloud is not installed' }))).toEqual([
      `Rehearsal of rl-qwen3: not known before the apply (listing gs://acme-ckpt/${proof.glob}: gcloud is not installed); the apply's \`rehearsal\` output says it after`,
    ]);
  });
});

describe('gcsLister', () => {
  let server: http.Server;
  let url: string;
  let answer: (u: URL, res: http.ServerResponse) => void;
  beforeAll(async () => {
    server = http.createServer((req, res) => answer(new URL(req.url ?? '/', 'http://x'), res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const list = (timeoutMs = 2000) => gcsLister({ endpoint: url, token: async () => 't', timeoutMs })('acme-ckpt', proof.glob);

  test('every page followed; an answer without items is an empty list (as the provider reads it)', async () => {
    answer = (u, res) => {
      const page = Number(u.searchParams.get('pageToken') ?? 0);
      res.end(JSON.stringify(page < 2 ? { items: [{ name: `o${page}` }], nextPageToken: String(page + 1) } : { items: [{ name: 'o2' }] }));
    };
    expect(await list()).toEqual({ names: ['o0', 'o1', 'o2'] });
    answer = (_u, res) => res.end('{"kind":"storage#objects"}');
    expect(await list()).toEqual({ names: [] });
  });

  test(`more than ${MAX_LIST_PAGES} pages: said, not read on`, async () => {
    let n = 0;
    answer = (_u, res) => res.end(JSON.stringify({ items: [{ name: `o${n}` }], nextPageToken: String(++n) }));
    expect(await list()).toEqual({ problem: `more than ${MAX_LIST_PAGES} pages of objects match ${proof.glob}` });
    expect(n).toBe(MAX_LIST_PAGES);
  });

  test.each([
    [403, 'HTTP 403: your gcloud login may not list gs://acme-ckpt (roles/storage.objectViewer)'],
    [404, 'gs://acme-ckpt does not exist (deploy infra first)'],
    [500, 'HTTP 500 from Cloud Storage'],
  ])('HTTP %d: %s', async (code, problem) => {
    answer = (_u, res) => res.writeHead(code).end('{}');
    expect(await list()).toEqual({ problem });
  });

  test('no answer within the timeout; a token that cannot be had', async () => {
    answer = () => undefined;
    expect(await list(300)).toEqual({ problem: 'no answer within 0.3 s' });
    server.closeAllConnections();
    const noToken = gcsLister({ endpoint: url, token: async () => Promise.reject(new Error('gcloud is not installed')), timeoutMs: 1000 });
    expect(await noToken('b', 'g')).toEqual({ problem: 'gcloud is not installed' });
  });
});
