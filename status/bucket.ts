/**
 * Reads one small object of the checkpoint bucket for `npm run status` (eval.json, status/eval.ts withEvalFiles):
 * Cloud Storage's JSON API, `GET <endpoint>/storage/v1/b/<bucket>/o/<object, URL-encoded>?alt=media` (Cloud Storage
 * "Objects: get"), with the user's own gcloud login (`gcloud auth print-access-token`, run once per command through
 * util/child-process.ts, killed at the request deadline). The endpoint is https://storage.googleapis.com, or
 * STORAGE_EMULATOR_HOST when set (the variable Google's client libraries read for an emulator). Every failure is a
 * reason, never a throw: status still shows everything else.
 */
import { BoundedRun, killedText, runBounded, silentExitText } from '../util/child-process';
import type { ObjectReader } from './eval';

/** Cloud Storage's endpoint. */
export const GCS_ENDPOINT = 'https://storage.googleapis.com';
/** The largest object read (an eval.json is a few KB). */
export const MAX_OBJECT_BYTES = 1 << 20;

/** `gs://bucket/a/b` -> bucket and object name, or undefined. */
export function parseGsUrl(url: string): { bucket: string; object: string } | undefined {
  const m = /^gs:\/\/([^/]+)\/(.+)$/.exec(url);
  return m ? { bucket: m[1], object: m[2] } : undefined;
}

/** A token from `gcloud auth print-access-token` (util/child-process.ts runBounded, killed at `timeoutMs`), asked once and shared. */
export function gcloudToken(timeoutMs: number, command = 'gcloud'): () => Promise<string> {
  let token: Promise<string> | undefined;
  return () => (token ??= printAccessToken(timeoutMs, command));
}

async function printAccessToken(timeoutMs: number, command: string): Promise<string> {
  const what = 'gcloud auth print-access-token';
  let run: BoundedRun;
  try {
    run = await runBounded(command, ['auth', 'print-access-token'], { timeoutMs });
  } catch (err) {
    throw new Error((err as NodeJS.ErrnoException).code === 'ENOENT' ? 'gcloud is not installed' : `${what} failed: ${(err as Error).message}`);
  }
  if (run.timedOut) throw new Error(`${killedText(what, timeoutMs)}; run it by hand to see what it waits for (a login: gcloud auth login)`);
  if (run.code !== 0) throw new Error(`${what} failed: ${run.stderr.trim().split('\n')[0] || silentExitText(run.code)}`);
  if (!run.stdout.trim()) throw new Error(`${what} printed no token: gcloud auth login`);
  return run.stdout.trim();
}

/** What a Cloud Storage call needs: the endpoint, the user's token, the deadline of each request. */
export interface GcsOptions {
  readonly endpoint: string;
  readonly token: () => Promise<string>;
  readonly timeoutMs: number;
}

/**
 * What the reader and the lister share: the user's token, then `calls` with an authorized GET of the JSON API (each
 * request under its own deadline); a token that cannot be had, a refused login (401/403: `may not <verb> gs://<bucket>`)
 * and a request that fails or times out are reasons, never throws.
 */
export async function withGcs<T>(
  options: GcsOptions,
  access: { readonly verb: 'read' | 'list'; readonly bucket: string },
  calls: (get: (path: string) => Promise<Response | { problem: string }>) => Promise<T | { problem: string }>,
): Promise<T | { problem: string }> {
  let token: string;
  try {
    token = await options.token();
  } catch (err) {
    return { problem: (err as Error).message };
  }
  const get = async (p: string): Promise<Response | { problem: string }> => {
    const res = await fetch(`${options.endpoint.replace(/\/$/, '')}/storage/v1/${p}`, { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(options.timeoutMs) });
    const refused = res.status === 401 || res.status === 403;
    return refused ? { problem: `HTTP ${res.status}: your gcloud login may not ${access.verb} gs://${access.bucket} (roles/storage.objectViewer)` } : res;
  };
  try {
    return await calls(get);
  } catch (err) {
    const e = err as Error;
    return { problem: e.name === 'TimeoutError' ? `no answer within ${options.timeoutMs / 1000} s` : e.message };
  }
}

/** The reader: the object's text, none on 404, or the reason it could not be read. */
export function gcsReader(options: GcsOptions): ObjectReader {
  return async (gsUrl) => {
    const where = parseGsUrl(gsUrl);
    if (!where) return { problem: `not a gs:// object path` };
    return withGcs(options, { verb: 'read', bucket: where.bucket }, async (get) => {
      const res = await get(`b/${encodeURIComponent(where.bucket)}/o/${encodeURIComponent(where.object)}?alt=media`);
      if ('problem' in res) return res;
      if (res.status === 404) return {};
      if (!res.ok) return { problem: `HTTP ${res.status} from Cloud Storage` };
      if (Number(res.headers.get('content-length') ?? 0) > MAX_OBJECT_BYTES) return { problem: `larger than ${MAX_OBJECT_BYTES} bytes` };
      const text = await res.text();
      if (text.length > MAX_OBJECT_BYTES) return { problem: `larger than ${MAX_OBJECT_BYTES} bytes` };
      return { text };
    });
  };
}

/** Pages of an object listing read at most (1,000 names a page: Cloud Storage "Objects: list" maxResults default). */
export const MAX_LIST_PAGES = 20;

/** What a listing found: the names, or the reason it could not list. */
export type ObjectNames = { readonly names: readonly string[] } | { readonly problem: string };

/**
 * Lists the names of the bucket's objects matching a glob as the pipelines' rehearsal data source does (hashicorp/google
 * provider `google_storage_bucket_objects`: `GET b/<bucket>/o?matchGlob=<glob>`, following `nextPageToken`; an answer
 * without `items` is an empty list), at most MAX_LIST_PAGES pages. Read-only; every failure is a reason.
 */
export function gcsLister(options: GcsOptions): (bucket: string, glob: string) => Promise<ObjectNames> {
  return (bucket, glob) =>
    withGcs(options, { verb: 'list', bucket }, async (get) => {
      const names: string[] = [];
      let page: string | undefined;
      for (let i = 0; i < MAX_LIST_PAGES; i++) {
        const query = new URLSearchParams({ matchGlob: glob, fields: 'items(name),nextPageToken', ...(page ? { pageToken: page } : {}) });
        const res = await get(`b/${encodeURIComponent(bucket)}/o?${query}`);
        if ('problem' in res) return res;
        if (res.status === 404) return { problem: `gs://${bucket} does not exist (deploy infra first)` };
        if (!res.ok) return { problem: `HTTP ${res.status} from Cloud Storage` };
        const body = (await res.json()) as { items?: Array<{ name?: unknown }>; nextPageToken?: unknown };
        names.push(...(body.items ?? []).map((o) => o.name).filter((n): n is string => typeof n === 'string'));
        if (typeof body.nextPageToken !== 'string' || body.nextPageToken === '') return { names };
        page = body.nextPageToken;
      }
      return { problem: `more than ${MAX_LIST_PAGES} pages of objects match ${glob}` };
    });
}
