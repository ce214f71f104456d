/**
 * What the status CLI tests that start fake API servers share (hostile, deadlines, eval, lineage, run-report, serve,
 * rehearsal): the compiled CLI built once, every server closed and every temporary folder removed after each test.
 */
import * as fs from 'fs';
import { emptyWorld, FakeApi, startFakeApi, writeKubeconfig } from '../../bench/fake-kube-api';
import { ensureDist } from '../dist';

let closers: Array<() => Promise<void>> = [];
let dirs: string[] = [];

/** Registers the suite's hooks: build dist/ before, close servers and remove folders after each test. */
export function useFakeApis(): void {
  beforeAll(ensureDist);
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
}

/** Closes `close` after the current test. */
export function closeAfter(close: () => Promise<void>): void {
  closers.push(close);
}

/** Removes `dir` after the current test. */
export function removeAfter(dir: string): void {
  dirs.push(dir);
}

/** A fake API server over `world`, closed after the test. */
export async function fake(world = emptyWorld()): Promise<FakeApi> {
  const api = await startFakeApi(world);
  closeAfter(() => api.close());
  return api;
}

/** A kubeconfig for `url` in its own HOME, removed after the test: the CLI's environment. */
export function kubeconfig(url: string, options: Parameters<typeof writeKubeconfig>[1] = {}): Record<string, string> {
  const { file, dir } = writeKubeconfig(url, options);
  removeAfter(dir);
  return { KUBECONFIG: file, HOME: dir };
}
