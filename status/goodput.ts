/**
 * Goodput and badput of a training run, as ml-goodput-measurement's monitor writes them into the run's TensorBoard
 * folder (jobs/goodput.ts: MaxText maxtext-v0.2.4 `monitor_goodput`): scalars `goodput/goodput` and `badput/<type>`
 * (percent of the job's time; ml-goodput-measurement 0.2.3 src/monitoring.py `_upload_goodput_metrics_to_tensorboard`,
 * through tensorboardX's SummaryWriter: `Summary.Value.simple_value`, at the last step recorded). The newest values
 * win (highest step, then the later record). Read only with `npm run status -- --goodput` (a bucket read).
 *
 * Event files are TFRecords (tensorflow/core/lib/io/record_writer.cc): little-endian uint64 length, uint32 masked
 * CRC-32C of the length, the data, uint32 masked CRC-32C of the data; each data an `Event` (tensorboard
 * tensorboard/compat/proto/event.proto: `double wall_time = 1; int64 step = 2; Summary summary = 5`; summary.proto:
 * `Summary { repeated Value value = 1 }`, `Value { string tag = 1; float simple_value = 2; ... }`), decoded with
 * protobufjs from that subset (fields not declared are skipped). The CRCs are not checked; a record whose length runs
 * past the file ends the read (a file still being written).
 */
import * as protobuf from 'protobufjs';
import { MAX_GOODPUT_FILE_BYTES } from './tensorboard';

const EVENT_PROTO = protobuf.Root.fromJSON({
  nested: {
    Event: { fields: { wallTime: { type: 'double', id: 1 }, step: { type: 'int64', id: 2 }, summary: { type: 'Summary', id: 5 } } },
    Summary: {
      fields: { value: { rule: 'repeated', type: 'Value', id: 1 } },
      nested: { Value: { oneofs: { value: { oneof: ['simpleValue'] } }, fields: { tag: { type: 'string', id: 1 }, simpleValue: { type: 'float', id: 2 } } } },
    },
  },
}).lookupType('Event');

export interface Scalar {
  readonly tag: string;
  readonly step: number;
  readonly wallTime: number;
  readonly value: number;
}

/** Every simple-value scalar of an event file, in file order. */
export function eventScalars(data: Buffer): Scalar[] {
  const out: Scalar[] = [];
  let at = 0;
  while (at + 12 <= data.length) {
    const length = Number(data.readBigUInt64LE(at));
    const start = at + 12;
    if (start + length + 4 > data.length) break;
    // The decoded message, not toObject: a simple_value of 0 is on the wire (a oneof member) and must count; fields
    // not on the wire are the prototype's defaults, so presence is an own property.
    const event = EVENT_PROTO.decode(data.subarray(start, start + length)) as unknown as {
      wallTime: number;
      step: number | { toNumber(): number };
      summary?: { value?: Array<{ tag: string; simpleValue: number }> };
    };
    const step = typeof event.step === 'number' ? event.step : event.step.toNumber();
    for (const v of event.summary?.value ?? []) {
      if (Object.prototype.hasOwnProperty.call(v, 'simpleValue')) out.push({ tag: v.tag, step, wallTime: event.wallTime, value: v.simpleValue });
    }
    at = start + length + 4;
  }
  return out;
}

export interface Goodput {
  /** Percent of the job's time spent on productive steps. */
  readonly goodput: number;
  /** The last step the monitor had seen. */
  readonly step: number;
  /** Percent per badput type (`tpu_initialization`, `training_prep`, `data_loading_sync`, ...; nested types as `type/subtype`). */
  readonly badput: Readonly<Record<string, number>>;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** The newest goodput and badput of the scalars (of one or more event files), or none when there is no `goodput/goodput`. */
export function goodputOf(scalars: readonly Scalar[]): Goodput | undefined {
  const newest = new Map<string, Scalar>();
  for (const s of scalars) {
    const had = newest.get(s.tag);
    if (!had || s.step > had.step || (s.step === had.step && s.wallTime >= had.wallTime)) newest.set(s.tag, s);
  }
  const g = newest.get('goodput/goodput');
  if (!g) return undefined;
  const badput = Object.fromEntries(
    [...newest.values()].filter((s) => s.tag.startsWith('badput/') && s.step === g.step).map((s) => [s.tag.slice('badput/'.length), round(s.value)]),
  );
  return { goodput: round(g.value), step: g.step, badput };
}

/**
 * ml-goodput-measurement 0.2.3 BadputType names (src/goodput_utils.py), as words. DATA_LOADING_ASYNC overlaps the
 * steps (the library reports it; it is not time lost), so the line says so.
 */
const BADPUT_WORDS: Readonly<Record<string, string>> = {
  tpu_initialization: 'TPU initialization',
  training_prep: 'training preparation',
  program_startup: 'program startup',
  data_loading_sync: 'data loading',
  data_loading_async: 'data loading overlapped with steps',
  unproductive_checkpoint_save_time: 'checkpoint saves',
  unproductive_checkpoint_restore_time: 'checkpoint restores',
  wasted_progress_from_disruption: 'progress lost to disruptions',
  infrastructure_recovery_from_disruption: 'recovery from disruptions',
  other: 'other',
};

/** `goodput 89.92% at step 119 (...); badput: data loading overlapped with steps 9.92%, TPU initialization 6.25%, ...` (non-zero causes, largest first). */
export function goodputLine(g: Goodput): string {
  const causes = Object.entries(g.badput)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${BADPUT_WORDS[k] ?? k.replace(/_/g, ' ')} ${v}%`);
  return `goodput ${g.goodput}% at step ${g.step} (MaxText goodput recording)${causes.length > 0 ? `; badput: ${causes.join(', ')}` : ''}`;
}

/** What withGoodput reads with (status/tensorboard.ts gcsPrefixLister and gcsDownloader). */
export interface GoodputReaders {
  readonly list: (bucket: string, prefix: string) => Promise<{ objects: ReadonlyArray<{ name: string; size: number }> } | { problem: string }>;
  readonly download: (bucket: string, object: string) => Promise<{ data?: Buffer } | { problem: string }>;
}

/**
 * The goodput line under the training step of each pipeline whose trainer records goodput and whose training step has
 * started (running, stalled, completed, failed): every event file of `<trainRunDir>tensorboard/` (at most
 * MAX_GOODPUT_FILE_BYTES each) read once, the newest values (goodputOf). No record yet is one note; a file that cannot
 * be read is one note naming it.
 */
export async function withGoodput<S extends { name: string; steps: ReadonlyArray<{ name: string; state: string; details: readonly string[] }> }>(
  statuses: readonly S[],
  runs: ReadonlyMap<string, { readonly trainRunDir?: string; readonly recordsGoodput: boolean }>,
  readers: GoodputReaders,
): Promise<{ statuses: S[]; notes: string[] }> {
  const notes: string[] = [];
  const out: S[] = [];
  for (const p of statuses) {
    const run = runs.get(p.name);
    const i = p.steps.findIndex((s) => s.name === 'train');
    const started = i >= 0 && ['running', 'stalled', 'completed', 'failed'].includes(p.steps[i]!.state);
    if (!run?.trainRunDir || !run.recordsGoodput || !started) {
      out.push(p);
      continue;
    }
    const folder = `${run.trainRunDir.replace(/\/?$/, '/')}tensorboard/`;
    const m = /^gs:\/\/([^/]+)\/(.*)$/.exec(folder);
    if (!m) {
      out.push(p);
      continue;
    }
    const [, bucket, prefix] = m as unknown as [string, string, string];
    const listed = await readers.list(bucket, prefix);
    if ('problem' in listed) {
      notes.push(`${p.name}: goodput not read (cannot list ${folder}: ${listed.problem})`);
      out.push(p);
      continue;
    }
    const scalars: Scalar[] = [];
    for (const o of listed.objects.filter((x) => /(^|\/)events\.out\.tfevents\.[^/]*$/.test(x.name))) {
      if (o.size > MAX_GOODPUT_FILE_BYTES) {
        notes.push(`${p.name}: gs://${bucket}/${o.name} not read for goodput (over ${MAX_GOODPUT_FILE_BYTES} bytes)`);
        continue;
      }
      const got = await readers.download(bucket, o.name);
      if ('problem' in got) notes.push(`${p.name}: gs://${bucket}/${o.name} not read for goodput (${got.problem})`);
      else if (got.data) scalars.push(...eventScalars(got.data));
    }
    const g = goodputOf(scalars);
    if (!g) {
      notes.push(`${p.name}: no goodput record yet in ${folder} (the monitor writes one every 30 s once training steps)`);
      out.push(p);
      continue;
    }
    const steps = p.steps.map((s, k) => (k === i ? { ...s, details: [...s.details, goodputLine(g)] } : s));
    out.push({ ...p, steps } as S);
  }
  return { statuses: out, notes };
}
