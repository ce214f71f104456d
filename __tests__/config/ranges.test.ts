/** Range and format checks at load time: GKE limits, CIDR rules, bucket dots, image references, input sizes. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ConfigError, loadConfig, MAX_CONFIG_FILE_BYTES } from '../../config/load';
import { configFile } from '../util';
import { cidrProblem, coversInternet, isDocumentationRange, MAX_PIPELINES } from '../../config/schema';

/** Real values for every example placeholder: no placeholder notice. */
const NO_PLACEHOLDERS = { PROJECT: 'acme-tpu-prod', GCS_BUCKET: 'acme-post-train-ckpt', RESERVATION: 'acme-v6e-32', AUTHORIZED_CIDR: '198.18.0.0/15' };

function configError(env: Record<string, string>, file?: string): string {
  try {
    loadConfig({ env, file });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('counts within GKE limits', () => {
  test('CLUSTER_NODEPOOL_COUNT=100000 fails in milliseconds, naming the variable and the bound', () => {
    // Deterministic, not a clock: the refusal comes before anything is built per slice (no array of that length).
    const from = jest.spyOn(Array, 'from');
    let message: string;
    try {
      message = configError({ CLUSTER_NODEPOOL_COUNT: '100000' });
    } finally {
      from.mockRestore();
    }
    expect(message).toContain(
      'CLUSTER_NODEPOOL_COUNT (env): number of slices must be at most 1875 for ct6e-standard-4t 4x8 (8 VMs each; GKE allows 15000 nodes per cluster), got 100000',
    );
    expect(from.mock.calls.filter(([a]) => typeof (a as { length?: unknown })?.length === 'number' && (a as { length: number }).length >= 1875)).toEqual([]);
  });

  test('the bound follows the slice: a 1-VM slice allows more pools', () => {
    expect(configError({ COMPUTE_TYPE: 'ct6e-standard-8t', TOPOLOGY: '2x4', CLUSTER_NODEPOOL_COUNT: '15001' })).toContain(
      'must be at most 15000 for ct6e-standard-8t 2x4 (1 VMs each',
    );
  });

  test('more authorized networks than GKE accepts', () => {
    const cidrs = Array.from({ length: 51 }, (_, i) => `10.0.${i}.0/24`).join(',');
    expect(configError({ AUTHORIZED_CIDR: cidrs })).toContain("AUTHORIZED_CIDR (env): at most 50 CIDR blocks (GKE's authorized-networks limit)");
  });
});

describe('CIDR rules', () => {
  test('host bits set below the prefix are refused, with the block meant', () => {
    expect(cidrProblem('198.51.100.7/24')).toBe('has host bits set below the /24 prefix (GKE rejects it); did you mean 198.51.100.0/24?');
    expect(configError({ AUTHORIZED_CIDR: '10.1.2.3/8' })).toContain(
      "AUTHORIZED_CIDR (env): authorized CIDR has host bits set below the /8 prefix (GKE rejects it); did you mean 10.0.0.0/8?, got '10.1.2.3/8'",
    );
    expect(cidrProblem('10.1.2.3/32')).toBeUndefined();
  });

  test('ranges that together cover the internet count as 0.0.0.0/0', () => {
    expect(coversInternet(['0.0.0.0/1', '128.0.0.0/1'])).toBe(true);
    expect(coversInternet(['0.0.0.0/2', '64.0.0.0/2', '128.0.0.0/2', '192.0.0.0/3', '224.0.0.0/3'])).toBe(true);
    expect(coversInternet(['0.0.0.0/1', '128.0.0.0/2'])).toBe(false);
    expect(configError({ AUTHORIZED_CIDR: '0.0.0.0/1,128.0.0.0/1' })).toContain(
      'the authorized CIDRs 0.0.0.0/1, 128.0.0.0/1 together cover the whole internet (as open as 0.0.0.0/0)',
    );
    expect(() => loadConfig({ env: { AUTHORIZED_CIDR: '0.0.0.0/1,128.0.0.0/1', ALLOW_PUBLIC_CONTROL_PLANE: 'true' } })).not.toThrow();
  });

  test('documentation ranges (RFC 5737) are recognised as placeholders', () => {
    expect(isDocumentationRange('203.0.113.0/24')).toBe(true);
    expect(isDocumentationRange('198.51.100.64/26')).toBe(true);
    expect(isDocumentationRange('203.0.112.0/23')).toBe(false);
  });
});

describe('bucket names with dots need domain verification: a clear warning', () => {
  test('a dotted name loads with one notice naming the variable and the fix', () => {
    const loaded = loadConfig({ env: { ...NO_PLACEHOLDERS, GCS_BUCKET: 'ckpt.example.com' } });
    expect(loaded.notices).toEqual([
      "GCS_BUCKET (env): bucket name 'ckpt.example.com' contains dots: Cloud Storage creates it only if you have verified ownership of the domain 'ckpt.example.com' (Search Console); otherwise the deploy fails with 403; use dashes instead (e.g. 'ckpt-example-com')",
    ]);
    expect(loadConfig({ env: NO_PLACEHOLDERS }).notices).toEqual([]);
  });
});

describe('image references', () => {
  test('CLOUD_IMAGE_NAME must be registry/path:tag or @sha256 digest', () => {
    expect(configError({ CLOUD_IMAGE_NAME: 'us-docker.pkg.dev/p/r/img' })).toContain(
      "CLOUD_IMAGE_NAME (env): image must be a reference such as us-docker.pkg.dev/<project>/<repo>/<image>:<tag> or <image>@sha256:<64 hex digits>, got 'us-docker.pkg.dev/p/r/img'",
    );
    expect(configError({ CLOUD_IMAGE_NAME: 'US-docker.pkg.dev/p/R/img:1' })).toContain('CLOUD_IMAGE_NAME (env): image must be a reference');
    expect(() => loadConfig({ env: { CLOUD_IMAGE_NAME: `ghcr.io/acme/maxtext@sha256:${'a'.repeat(64)}` } })).not.toThrow();
    expect(() => loadConfig({ env: { CLOUD_IMAGE_NAME: 'localhost:5000/maxtext:dev-1' } })).not.toThrow();
  });
});

describe('config errors for any input size, before the input is split or parsed', () => {
  // Deterministic, not a clock (npm run bench measures the time): the work that grows with the input (String split,
  // JSON parsing) is never done on an input over its bound.
  const BIG = MAX_CONFIG_FILE_BYTES;
  const guarded = (fn: () => unknown): { message: string; bigWork: string[] } => {
    const split = jest.spyOn(String.prototype, 'split');
    const parse = jest.spyOn(JSON, 'parse');
    let message = '';
    try {
      fn();
    } catch (err) {
      message = (err as Error).message;
    } finally {
      split.mockRestore();
      parse.mockRestore();
    }
    const big = (text: unknown) => typeof text === 'string' && text.length > BIG;
    const bigWork = [
      ...split.mock.contexts.filter((t) => String(t).length > BIG).map(() => 'split'),
      ...parse.mock.calls.filter(([text]) => big(text)).map(() => 'JSON.parse'),
    ];
    return { message, bigWork };
  };

  test('a huge environment value is refused before it is split', () => {
    const r = guarded(() => loadConfig({ env: { AUTHORIZED_CIDR: '10.0.0.0/8,'.repeat(1_000_000) } }));
    expect(r.message).toContain('AUTHORIZED_CIDR (env): is 11000000 characters long; at most 4096 are read');
    expect(r.bigWork).toEqual([]);
  });

  test('a huge config file is refused before it is parsed', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-big-')), 'big.json');
    fs.writeFileSync(file, JSON.stringify({ pipelines: Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`p${i}`, {}])) }));
    const r = guarded(() => loadConfig({ env: {}, file }));
    expect(r.message).toContain(`config file is ${fs.statSync(file).size} bytes; at most ${MAX_CONFIG_FILE_BYTES} are read`);
    expect(r.bigWork).toEqual([]);
  });
});

test('at most MAX_PIPELINES (64) pipeline entries: one more is a config error naming the key, before any pipeline is built', () => {
  const many = (n: number) =>
    configFile((c) => {
      c.pipelines = Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { recipe: 'no-such-recipe' }]));
    });
  const message = (file: string) => {
    try {
      loadConfig({ env: NO_PLACEHOLDERS, file });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('expected a ConfigError');
  };
  expect(MAX_PIPELINES).toBe(64);
  expect(message(many(MAX_PIPELINES + 1))).toMatch(/pipelines: at most 64 pipeline entries/);
  // At the cap the count passes: what fails is each entry's own key (an unknown recipe), not the count.
  expect(message(many(MAX_PIPELINES))).not.toContain('pipeline entries');
});

test('more than 200 node pools: a notice that the autoscaler slows down', () => {
  expect(loadConfig({ env: { ...NO_PLACEHOLDERS, CLUSTER_NODEPOOL_COUNT: '199' } }).notices).toEqual([
    expect.stringMatching(/^CLUSTER_NODEPOOL_COUNT \(env\): 201 node pools: above 200 GKE's cluster autoscaler slows down/),
  ]);
  expect(loadConfig({ env: { ...NO_PLACEHOLDERS, CLUSTER_NODEPOOL_COUNT: '198' } }).notices).toEqual([]);
});
