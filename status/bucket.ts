/**
 * Reads one small object of the checkpoint bucket for `npm run status` (eval.json, status/eval.ts withEvalFiles):
 * Cloud Storage's JSON API, `GET <endpoint>/storage/v1/b/<bucket>/o/<object, URL-encoded>?alt=media` (Cloud Storage
 * "Objects: get"), with the user's own gcloud login (`gcloud auth print-access-token`, run once per command, killed at
 * the request deadline). The endpoint is https://storage.googleapis.com, or STORAGE_EMULATOR_HOST when set (the
 * variable Google's client libraries read for an emulator). Every failure is a reason, never a throw: status still
 * shows everything else.
 */
import { execFile } from 'child_process';
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

/** A token from `gcloud auth print-access-token`, asked once and shared. */
export function gcloudToken(timeoutMs: number, command = 'gcloud'): () => Promise<string> {
  let token: Promise<string> | undefined;
  return () =>
    (token ??= new Promise((resolve, reject) => {
      execFile(command, ['auth', 'print-access-token'], { timeout: timeoutMs, encoding: 'utf8' }, (err, stdout, stderr) => {
        if (err) {
          const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
          reject(new Error(missing ? 'gcloud is not installed' : `gcloud auth print-access-token failed: ${(stderr || err.message).trim().split('\n')[0]}`));
        } else if (!stdout.trim()) reject(new Error('gcloud auth print-access-token printed no token: gcloud auth login'));
        else resolve(stdout.trim());
      });
    }));
}

/** The reader: the object's text, none on 404, or the reason it could not be read. */
export function gcsReader(options: { endpoint: string; token: () => Promise<string>; timeoutMs: number }): ObjectReader {
  return async (gsUrl) => {
    const where = parseGsUrl(gsUrl);
    if (!where) return { problem: `not a gs:// object path` };
    let token: string;
    try {
      token = await options.token();
    } catch (err) {
      return { problem: (err as Error).message };
    }
    const url = `${options.endpoint.replace(/\/$/, '')}/storage/v1/b/${encodeURIComponent(where.bucket)}/o/${encodeURIComponent(where.object)}?alt=media`;
    try {
      const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(options.timeoutMs) });
      if (res.status === 404) return {};
      if (res.status === 401 || res.status === 403) return { problem: `HTTP ${res.status}: your gcloud login may not read gs://${where.bucket} (roles/storage.objectViewer)` };
      if (!res.ok) return { problem: `HTTP ${res.status} from Cloud Storage` };
      if (Number(res.headers.get('content-length') ?? 0) > MAX_OBJECT_BYTES) return { problem: `larger than ${MAX_OBJECT_BYTES} bytes` };
      const text = await res.text();
      if (text.length > MAX_OBJECT_BYTES) return { problem: `larger than ${MAX_OBJECT_BYTES} bytes` };
      return { text };
    } catch (err) {
      const e = err as Error;
      return { problem: e.name === 'TimeoutError' ? `no answer within ${options.timeoutMs / 1000} s` : e.message };
    }
  };
}
