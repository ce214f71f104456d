/**
 * Bad input, as a user runs it (`node dist/main.js`, what cdktf.json runs): every class below exits 1, names the
 * variable or file key that set the value, shows the value with what a terminal would hide escaped (JSON-style:
 * `\u200b`, `\u00fc`), and writes nothing (the output folder is never created).
 */
import { APP_NODE_FLAGS } from '../../review/load';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { escapeText, loadConfig } from '../../config/load';
import { ensureDist } from '../dist';

const ROOT = path.join(__dirname, '..', '..');
const example = JSON.parse(fs.readFileSync(path.join(ROOT, 'config', 'example.json'), 'utf8'));
/** Real values for the example's placeholders, so only the bad value is reported. */
const REAL = { PROJECT: 'acme-tpu-prod', GCS_BUCKET: 'acme-post-train-ckpt', RESERVATION: 'acme-v6e-32', AUTHORIZED_CIDR: '198.18.0.0/15' };

beforeAll(ensureDist);

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-bad-'));
}

/** A config file: the example patched, or raw bytes. */
function configFile(content: ((c: any) => void) | Buffer | string): string {
  const file = path.join(tmpDir(), 'config.json');
  if (typeof content === 'function') {
    const copy = JSON.parse(JSON.stringify(example));
    content(copy);
    fs.writeFileSync(file, JSON.stringify(copy, null, 2));
  } else fs.writeFileSync(file, content);
  return file;
}

/** Runs the entry point; returns exit status, stderr, stdout and whether the output folder was touched. */
function runMain(env: Record<string, string>) {
  const outdir = path.join(tmpDir(), 'cdktf.out');
  const r = spawnSync(process.execPath, [...APP_NODE_FLAGS, path.join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, CDKTF_OUTDIR: outdir, ...env },
    encoding: 'utf8',
  });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout, wrote: fs.existsSync(outdir) };
}

/** Exit 1, nothing written, nothing on stdout, only printable ASCII on stderr, and each expected line in it. */
function refused(env: Record<string, string>, ...expected: string[]) {
  const r = runMain(env);
  expect({ status: r.status, wrote: r.wrote, stdout: r.stdout }).toEqual({ status: 1, wrote: false, stdout: '' });
  expect(r.stderr).toMatch(/^[\x20-\x7e\n]*$/);
  for (const line of expected) expect(r.stderr).toContain(line);
  return r.stderr;
}

describe('an error names the variable that set the value, not the config file', () => {
  test('REGION set, ZONE from the file: the zone message names REGION as where the region came from', () => {
    refused(
      { ...REAL, REGION: 'europe-west4' },
      "config/example.json: zone: zone must be one of europe-west4-a, europe-west4-b, europe-west4-c (the zones of region europe-west4), got 'us-east5-b' (region 'europe-west4' from REGION (env))",
    );
  });

  test('RUN_ID reaches every pipeline, also one the file does not list, and its errors name RUN_ID', () => {
    const file = configFile((c) => delete c.pipelines);
    refused({ ...REAL, CONFIG_FILE: file, RUN_ID: 'Run_2' }, "RUN_ID (env): run id must be lowercase letters, digits or dashes, starting and ending with a letter or digit, got 'Run_2'");
    refused({ ...REAL, RUN_ID: 'a-very-long-run-identifier-that-goes-on' }, "RUN_ID (env): run id 'a-very-long-run-identifier-that-goes-on' is too long");
  });

  test('TPU_CAPACITY replaces the file\'s capacity and reservation as a pair: the missing reservation is its doing', () => {
    expect(() => loadConfig({ env: { ...REAL, RESERVATION: '', TPU_CAPACITY: 'reservation' } })).toThrow(
      "TPU_CAPACITY (env): capacity 'reservation' needs a reservation name; set it, or choose capacity 'spot' or 'flex-start'",
    );
  });

  test('CLOUD_IMAGE_NAME: the image error names the variable', () => {
    refused({ ...REAL, CLOUD_IMAGE_NAME: 'maxtext' }, 'CLOUD_IMAGE_NAME (env): ');
  });

  test('a state bucket that is the checkpoint bucket names STATE_BUCKET and where the bucket came from', () => {
    refused(
      { ...REAL, STATE_BUCKET: 'acme-post-train-ckpt' },
      "STATE_BUCKET (env): the state bucket must not be the checkpoint bucket 'acme-post-train-ckpt': infra creates, manages and may destroy the checkpoint bucket",
      "got 'acme-post-train-ckpt' (bucket 'acme-post-train-ckpt' from GCS_BUCKET (env))",
    );
  });
});

describe('zones: ZONE must be a zone REGION has (the zone table, jobs/zones.ts)', () => {
  test('a zone letter the region does not have is refused at synth, naming its zones', () => {
    refused({ ...REAL, ZONE: 'us-east5-z' }, "ZONE (env): zone must be one of us-east5-a, us-east5-b, us-east5-c (the zones of region us-east5), got 'us-east5-z'");
    refused({ ...REAL, REGION: 'europe-west1', ZONE: 'europe-west1-a' }, "ZONE (env): zone must be one of europe-west1-b, europe-west1-c, europe-west1-d (the zones of region europe-west1), got 'europe-west1-a'");
  });
  test('a region the table does not have is refused; its zone is not checked on top', () => {
    refused({ ...REAL, REGION: 'us-east9', ZONE: 'us-east9-a' }, "REGION (env): region must be a Compute Engine region of the zone table (jobs/zones.ts), got 'us-east9'");
  });
  test('a zone that exists passes at synth even where its TPUs may not (africa-south1-a): the plan checks that', () => {
    expect(() => loadConfig({ env: { ...REAL, REGION: 'africa-south1', ZONE: 'africa-south1-a' } })).not.toThrow();
  });
});

describe('invisible and non-ASCII characters are shown escaped, never raw', () => {
  test.each([
    ['PROJECT', 'acme-tpu-prod\u200b', "PROJECT (env): must be a Google Cloud project id (6-30 lowercase letters, digits, dashes), got 'acme-tpu-prod\\u200b'"],
    ['GCS_BUCKET', 'b\u00fccket-ckpt', "GCS_BUCKET (env): bucket name may contain only lowercase letters, digits, dashes, underscores and dots, and must start and end with a letter or digit, got 'b\\u00fccket-ckpt'"],
    ['ZONE', 'us-east5-b\u200e', "ZONE (env): zone must be one of us-east5-a, us-east5-b, us-east5-c (the zones of region us-east5), got 'us-east5-b\\u200e'"],
    ['TOPOLOGY', '4x8\u0007', "TOPOLOGY (env): topology must be one of 2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16 for ct6e-standard-4t, got '4x8\\u0007'"],
    ['RESERVATION', 'acme\u2011v6e', "RESERVATION (env): reservation must be a Compute Engine reservation name (lowercase letters, digits, dashes) or a shared reservation 'projects/<project>/reservations/<name>', got 'acme\\u2011v6e'"],
  ])('%s with a hidden character', (name, value, message) => {
    refused({ ...REAL, [name]: value }, message);
  });

  test('the escape is JSON-style: control characters by name, astral characters as surrogate pairs; newlines inside a value too', () => {
    expect(escapeText('a\tb\u200b\u{1F600}\u00e9\nc', true)).toBe('a\\tb\\u200b\\ud83d\\ude00\\u00e9\\nc');
    expect(escapeText('line 1\nline 2')).toBe('line 1\nline 2');
  });
});

describe('config files that are not UTF-8 JSON are refused before they are read as a config', () => {
  const body = JSON.stringify(example);

  test('a UTF-8 byte-order mark', () => {
    const file = configFile(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]));
    refused({ CONFIG_FILE: file }, `${file} (CONFIG_FILE): starts with a UTF-8 byte-order mark (\\ufeff); save the config as UTF-8 without a byte-order mark`);
  });

  test('UTF-16, with and without a byte-order mark', () => {
    const le = configFile(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(body, 'utf16le')]));
    refused({ CONFIG_FILE: le }, `${le} (CONFIG_FILE): is UTF-16 (byte-order mark 0xfffe); save the config as UTF-8`);
    const bare = configFile(Buffer.from(body, 'utf16le'));
    refused({ CONFIG_FILE: bare }, `${bare} (CONFIG_FILE): holds a NUL byte at offset 1 (UTF-16 without a byte-order mark, or not text)`);
  });

  test('bytes that are not UTF-8', () => {
    const file = configFile(Buffer.concat([Buffer.from('{"project": "acme'), Buffer.from([0xe9]), Buffer.from('"}')]));
    refused({ CONFIG_FILE: file }, `${file} (CONFIG_FILE): is not valid UTF-8`);
  });

  test('duplicate keys, at any depth, with line and column', () => {
    const text = body.replace('"topology":"4x8",', '"topology":"4x8","topology":"2x4",').replace('{"project":', '{"zone":"us-east5-a","project":');
    const file = configFile(text.replace(/,"/g, ',\n"'));
    const stderr = refused({ CONFIG_FILE: file }, `${file} (CONFIG_FILE): duplicate key 'tpu.topology' (line `, "JSON keeps only the last one; remove one");
    expect(stderr).toMatch(/duplicate key 'zone' \(line \d+, column 1\)/);
  });

  test('CONFIG_FILE naming a directory', () => {
    const dir = tmpDir();
    refused({ CONFIG_FILE: dir }, `${dir} (CONFIG_FILE): is a directory; name a JSON config file such as config/example.json`);
  });
});

describe('values the schema refuses, each with its source and value', () => {
  test('CIDR octets or prefixes with leading zeros', () => {
    refused(
      { ...REAL, AUTHORIZED_CIDR: '010.0.0.0/8' },
      "AUTHORIZED_CIDR (env): authorized CIDR has a number with a leading zero (read as octal by some tools, as decimal by others); write it without: 10.0.0.0/8, got '010.0.0.0/8'",
    );
    refused({ ...REAL, AUTHORIZED_CIDR: '10.0.0.0/08' }, "write it without: 10.0.0.0/8, got '10.0.0.0/08'");
  });

  test.each(['kube-system', 'kube-public', 'kube-node-lease'])('the reserved namespace %s', (ns) => {
    const file = configFile((c) => (c.namespace = ns));
    refused(
      { ...REAL, CONFIG_FILE: file },
      `${file}: namespace: is reserved for Kubernetes itself (kube-system, kube-public, kube-node-lease): use a namespace of your own, such as default, got '${ns}'`,
    );
  });

  test.each([
    ['', "a non-empty name (it names the run's directory)"],
    ['runs/r2', "one directory name: no '/' and no '..'"],
    ['..', "one directory name: no '/' and no '..'"],
    ['r2/../other', "one directory name: no '/' and no '..'"],
  ])("run_name override '%s'", (runName, why) => {
    const file = configFile((c) => (c.pipelines['rl-qwen3'].overrides = { run_name: runName }));
    refused({ ...REAL, CONFIG_FILE: file }, `${file}: pipelines.rl-qwen3.overrides.run_name must be ${why}, got '${runName}'`);
  });

  test.each([
    [{ timeoutMinutes: { train: 1e9 } }, 'pipelines.rl-qwen3.timeoutMinutes.train: Number must be less than or equal to 43200, got 1000000000'],
    [{ timeoutMinutes: { train: 0 } }, 'pipelines.rl-qwen3.timeoutMinutes.train: Number must be greater than or equal to 1, got 0'],
    [{ timeoutMinutes: { 'to-hf': 2.5 } }, "pipelines.rl-qwen3.timeoutMinutes.to-hf: Expected integer, received float, got 2.5"],
    [{ queueMinutes: 1e6 }, 'pipelines.rl-qwen3.queueMinutes: Number must be less than or equal to 10080, got 1000000'],
    [{ maxRestarts: 1000 }, 'pipelines.rl-qwen3.maxRestarts: Number must be less than or equal to 20, got 1000'],
  ])('absurd timeout %j', (patch, message) => {
    const file = configFile((c) => Object.assign(c.pipelines['rl-qwen3'], patch));
    refused({ ...REAL, CONFIG_FILE: file }, `${file}: ${message}`);
  });
});
