/**
 * A Cloud Storage stand-in on loopback for Terraform's `gcs` backend (`storage_custom_endpoint`, `access_token`), enough
 * for init, plan and apply: the JSON API's object list, metadata, media download, multipart upload (with
 * `ifGenerationMatch=0`, the state lock's "does not exist" condition) and delete, and the path-style read
 * (`/<bucket>/<object>`) the client uses for state downloads. Written from the requests Terraform 1.11.4 sends (logged
 * against a catch-all server), not from the API's whole surface. Objects live in memory, by object name (the bucket
 * is not kept apart). The status CLI's reader (status/bucket.ts: `GET /storage/v1/b/<b>/o/<o>?alt=media` with the
 * gcloud token, STORAGE_EMULATOR_HOST) reads the same stand-in: the project's one Cloud Storage on loopback. It imports
 * nothing but Node (state-migration.test.ts runs it in a child process).
 */
import * as http from 'http';
import type { AddressInfo } from 'net';

interface StoredObject {
  readonly data: Buffer;
  readonly generation: number;
}

export interface FakeGcs {
  /** `http://127.0.0.1:<port>/storage/v1/`: the backend's `storage_custom_endpoint`. */
  readonly endpoint: string;
  /** `http://127.0.0.1:<port>`: STORAGE_EMULATOR_HOST, as Google's client libraries and status/bucket.ts read it. */
  readonly url: string;
  readonly objects: Map<string, StoredObject>;
  /** `METHOD path?query` of every request. */
  readonly requests: string[];
  close(): Promise<void>;
}

function meta(bucket: string, name: string, o: StoredObject) {
  return { kind: 'storage#object', bucket, name, id: `${bucket}/${name}/${o.generation}`, generation: String(o.generation), metageneration: '1', size: String(o.data.length), contentType: 'application/json', updated: new Date(0).toISOString() };
}

/** The metadata part and the data part of a `multipart/related` upload. */
function multipart(body: Buffer, contentType: string): { name: string; data: Buffer } {
  const boundary = /boundary=("?)([^";]+)\1/.exec(contentType)![2]!;
  const parts = body.toString('latin1').split(`--${boundary}`).slice(1, -1).map((p) => p.replace(/^\r\n/, '').replace(/\r\n$/, ''));
  const content = (part: string) => part.slice(part.indexOf('\r\n\r\n') + 4);
  return { name: (JSON.parse(content(parts[0]!)) as { name: string }).name, data: Buffer.from(content(parts[1]!), 'latin1') };
}

export interface FakeGcsOptions {
  /** Objects there from the start, as `gs://<bucket>/<name>` -> text. @default - none */
  readonly objects?: Readonly<Record<string, string>>;
  /** The only bearer token answered (401 otherwise). @default - any request is answered */
  readonly token?: string;
}

export function startFakeGcs(options: FakeGcsOptions = {}): Promise<FakeGcs> {
  const objects = new Map<string, StoredObject>();
  const requests: string[] = [];
  let generation = 1;
  for (const [url, text] of Object.entries(options.objects ?? {})) objects.set(url.replace(/^gs:\/\/[^/]+\//, ''), { data: Buffer.from(text), generation: generation++ });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      requests.push(`${req.method} ${req.url}`);
      const json = (code: number, value: unknown) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`) return json(401, { error: { code: 401, message: 'Invalid Credentials' } });
      const notFound = () => json(404, { error: { code: 404, message: 'No such object', errors: [{ reason: 'notFound' }] } });
      let m: RegExpExecArray | null;
      if ((m = /^\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname)) && req.method === 'GET') {
        const prefix = url.searchParams.get('prefix') ?? '';
        return json(200, { kind: 'storage#objects', items: [...objects].filter(([n]) => n.startsWith(prefix)).map(([n, o]) => meta(m![1]!, n, o)) });
      }
      if ((m = /^\/storage\/v1\/b\/([^/]+)\/o\/(.+)$/.exec(url.pathname))) {
        const name = decodeURIComponent(m[2]!);
        const o = objects.get(name);
        if (!o) return notFound();
        if (req.method === 'DELETE') {
          objects.delete(name);
          res.writeHead(204);
          return res.end();
        }
        if (url.searchParams.get('alt') === 'media') {
          res.writeHead(200, { 'content-type': 'application/json', 'x-goog-generation': String(o.generation) });
          return res.end(o.data);
        }
        return json(200, meta(m[1]!, name, o));
      }
      if ((m = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname)) && req.method === 'POST') {
        const { name, data } = multipart(body, req.headers['content-type'] ?? '');
        if (url.searchParams.get('ifGenerationMatch') === '0' && objects.has(name)) return json(412, { error: { code: 412, message: 'Precondition Failed' } });
        const o = { data, generation: generation++ };
        objects.set(name, o);
        return json(200, meta(m[1]!, name, o));
      }
      if ((m = /^\/([^/]+)\/(.+)$/.exec(url.pathname)) && req.method === 'GET' && !url.pathname.startsWith('/storage/')) {
        const o = objects.get(decodeURIComponent(m[2]!));
        if (!o) {
          res.writeHead(404);
          return res.end();
        }
        res.writeHead(200, { 'content-type': 'application/json', 'x-goog-generation': String(o.generation) });
        return res.end(o.data);
      }
      return notFound();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ endpoint: `http://127.0.0.1:${port}/storage/v1/`, url: `http://127.0.0.1:${port}`, objects, requests, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}
