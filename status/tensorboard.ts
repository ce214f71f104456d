/**
 * `npm run tensorboard -- <pipeline>`: the run's TensorBoard event files, copied from the bucket into a local folder
 * through the same Cloud Storage client status uses (status/bucket.ts: the JSON API with the user's gcloud login,
 * STORAGE_EMULATOR_HOST), then served by a local `tensorboard --logdir <folder>` when one is installed.
 *
 * Where the files are, read at the pinned MaxText (AI-Hypercomputer/maxtext maxtext-v0.2.4): base.yml
 * `enable_tensorboard: true` (the default, left on), `use_vertex_tensorboard: false` ("Set to true for GCE, false if
 * running via XPK"), `vertex_tensorboard_project: ""`, `vertex_tensorboard_region: ""`; the run writes its event files
 * under `tensorboard_dir = <base_output_directory>/<run_name>/tensorboard/` (RLConfig and MaxTextConfig alike;
 * shared/reference/maxtext-post-training.md), which is the record's `trainRunDir` + `tensorboard/` (jobs/maxtext.ts).
 * Copying is incremental: a file already there with the object's size is kept (event files only grow).
 */
import * as fs from 'fs';
import * as path from 'path';
import { GcsOptions, MAX_LIST_PAGES, parseGsUrl, withGcs } from './bucket';

/** The largest object copied (an event file of a long run is tens of MB; a profile trace may be more). */
export const MAX_EVENT_FILE_BYTES = 256 * 1024 * 1024;

/** The largest event file `status --goodput` reads (the monitor's own file is small; MaxText's metrics file beside it may not be). */
export const MAX_GOODPUT_FILE_BYTES = 64 * 1024 * 1024;

/** The run's TensorBoard folder in the bucket: `<trainRunDir>tensorboard/` (MaxText's tensorboard_dir). */
export function tensorboardDir(trainRunDir: string): string {
  return `${trainRunDir.replace(/\/?$/, '/')}tensorboard/`;
}

export interface ListedObject {
  readonly name: string;
  readonly size: number;
}

/** Every object under `prefix` (Cloud Storage "Objects: list" `prefix`, following nextPageToken), at most MAX_LIST_PAGES pages. */
export function gcsPrefixLister(options: GcsOptions): (bucket: string, prefix: string) => Promise<{ objects: ListedObject[] } | { problem: string }> {
  return (bucket, prefix) =>
    withGcs(options, { verb: 'list', bucket }, async (get) => {
      const objects: ListedObject[] = [];
      let page: string | undefined;
      for (let i = 0; i < MAX_LIST_PAGES; i++) {
        const query = new URLSearchParams({ prefix, fields: 'items(name,size),nextPageToken', ...(page ? { pageToken: page } : {}) });
        const res = await get(`b/${encodeURIComponent(bucket)}/o?${query}`);
        if ('problem' in res) return res;
        if (res.status === 404) return { problem: `gs://${bucket} does not exist (deploy infra first)` };
        if (!res.ok) return { problem: `HTTP ${res.status} from Cloud Storage` };
        const body = (await res.json()) as { items?: Array<{ name?: unknown; size?: unknown }>; nextPageToken?: unknown };
        for (const o of body.items ?? []) if (typeof o.name === 'string') objects.push({ name: o.name, size: Number(o.size ?? 0) });
        if (typeof body.nextPageToken !== 'string' || body.nextPageToken === '') return { objects };
        page = body.nextPageToken;
      }
      return { problem: `more than ${MAX_LIST_PAGES} pages of objects under gs://${bucket}/${prefix}` };
    });
}

/** An object's bytes (`alt=media`), at most `maxBytes`; none on 404; every failure a reason. */
export function gcsDownloader(options: GcsOptions, maxBytes = MAX_EVENT_FILE_BYTES): (bucket: string, object: string) => Promise<{ data?: Buffer } | { problem: string }> {
  return (bucket, object) =>
    withGcs(options, { verb: 'read', bucket }, async (get) => {
      const res = await get(`b/${encodeURIComponent(bucket)}/o/${encodeURIComponent(object)}?alt=media`);
      if ('problem' in res) return res;
      if (res.status === 404) return {};
      if (!res.ok) return { problem: `HTTP ${res.status} from Cloud Storage` };
      if (Number(res.headers.get('content-length') ?? 0) > maxBytes) return { problem: `larger than ${maxBytes} bytes` };
      const data = Buffer.from(await res.arrayBuffer());
      return data.length > maxBytes ? { problem: `larger than ${maxBytes} bytes` } : { data };
    });
}

export interface SyncResult {
  /** Local paths written. */
  readonly copied: readonly string[];
  /** Local paths already there with the object's size. */
  readonly kept: readonly string[];
  /** One line per object or listing that could not be copied. */
  readonly problems: readonly string[];
}

/**
 * Copies every object under the gs:// folder `logdir` into `localDir`, keeping the relative paths; an object whose
 * relative path would leave `localDir` (`..`, an absolute name) is refused, never written.
 */
export async function syncEventFiles(
  logdir: string,
  localDir: string,
  list: ReturnType<typeof gcsPrefixLister>,
  download: ReturnType<typeof gcsDownloader>,
): Promise<SyncResult> {
  const where = parseGsUrl(logdir);
  if (!where) return { copied: [], kept: [], problems: [`${logdir} is not a gs:// folder`] };
  const listed = await list(where.bucket, where.object);
  if ('problem' in listed) return { copied: [], kept: [], problems: [`cannot list ${logdir}: ${listed.problem}`] };
  const root = path.resolve(localDir);
  const copied: string[] = [];
  const kept: string[] = [];
  const problems: string[] = [];
  for (const o of listed.objects) {
    const rel = o.name.slice(where.object.length);
    if (rel === '' || rel.endsWith('/')) continue; // a folder placeholder
    const target = path.resolve(root, rel);
    if (!target.startsWith(root + path.sep)) {
      problems.push(`gs://${where.bucket}/${o.name}: its name leaves ${localDir}; not copied`);
      continue;
    }
    if (fs.existsSync(target) && fs.statSync(target).size === o.size) {
      kept.push(target);
      continue;
    }
    const got = await download(where.bucket, o.name);
    if ('problem' in got) {
      problems.push(`gs://${where.bucket}/${o.name}: ${got.problem}`);
      continue;
    }
    if (!got.data) continue; // deleted since the listing
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, got.data);
    copied.push(target);
  }
  return { copied, kept, problems };
}
