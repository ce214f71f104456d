/**
 * config/load.ts rule by rule, in process and cheap (no synthesis): what the user gets from each rule of the
 * environment layer and the file reader (the loaded config, where each value came from, the notices), and each
 * refusal's message, naming the variable or file key with the value escaped. Every load happens inside its test, so a
 * mutation run (stryker.config.mjs) attributes it to that test.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  ConfigError,
  ENV_BINDINGS,
  escapeText,
  findRepoRoot,
  knownVariables,
  loadConfig,
  MAX_CONFIG_FILE_BYTES,
  MAX_ENV_VALUE_LENGTH,
  misspelledVariables,
  PLACEHOLDER_FIELDS,
  sourceOf,
  UNREAD_TUTORIAL_VARIABLES,
} from '../../config/load';
import { RECIPES } from '../../jobs/recipes';

// Not ../util's configFile: that module loads the stacks (cdktf and the providers), seconds per run of this file.
/** A config file: config/example.json with `patch` applied to a deep copy; returns its path. */
function configFile(patch: (c: any) => void): string {
  const copy = JSON.parse(example());
  patch(copy);
  return rawFile(JSON.stringify(copy));
}

/** Real values for the example's placeholders: no placeholder notice. */
const REAL = { PROJECT: 'acme-tpu-prod', GCS_BUCKET: 'acme-post-train-ckpt', RESERVATION: 'acme-v6e-32', AUTHORIZED_CIDR: '198.18.0.0/15' };

/** The issues a load is refused with (each one line, as ConfigError holds them). */
function issuesOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

/** A file holding exactly these bytes (or text), in a fresh folder. */
function rawFile(content: Buffer | string, name = 'config.json'): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-rules-')), name);
  fs.writeFileSync(file, content);
  return file;
}

const example = (): string => fs.readFileSync(path.join(findRepoRoot(), 'config', 'example.json'), 'utf8');

describe('the environment variables, one test per binding kind', () => {
  // Listed here, not read from ENV_BINDINGS: a test generated from the table would lose the row a change drops.
  test.each([
    ['PROJECT', 'project'],
    ['REGION', 'region'],
    ['ZONE', 'zone'],
    ['CLUSTER_NAME', 'clusterName'],
    ['GCS_BUCKET', 'bucket'],
    ['STATE_BUCKET', 'stateBucket'],
    ['BUCKET_ACCESS', 'bucketSettings.access'],
    ['COMPUTE_TYPE', 'tpu.machineType'],
    ['TOPOLOGY', 'tpu.topology'],
    ['TPU_CAPACITY', 'tpu.capacity'],
    ['RESERVATION', 'tpu.reservation'],
    ['SINGLE_HOST_CAPACITY', 'singleHost.capacity'],
    ['SINGLE_HOST_RESERVATION', 'singleHost.reservation'],
  ])(
    '%s sets %s, trimmed, and is named as its source',
    (env, dotted) => {
      // A value the key's rules accept, so only the layering is tested.
      const value: Record<string, string> = {
        PROJECT: 'acme-tpu-prod',
        REGION: 'us-central1',
        ZONE: 'us-east5-a',
        CLUSTER_NAME: 'dev-tpu',
        GCS_BUCKET: 'acme-ckpt',
        STATE_BUCKET: 'acme-tf-state',
        BUCKET_ACCESS: 'objects',
        COMPUTE_TYPE: 'ct6e-standard-4t',
        TOPOLOGY: '4x4',
        TPU_CAPACITY: 'spot',
        RESERVATION: 'acme-v6e-32',
        SINGLE_HOST_CAPACITY: 'spot',
        SINGLE_HOST_RESERVATION: 'acme-v6e-8',
      };
      const extra: Record<string, string> = env === 'REGION' ? { ZONE: 'us-central1-a' } : {};
      const loaded = loadConfig({ env: { ...extra, [env]: ` ${value[env]} ` } });
      const leaf = dotted.split('.').reduce<any>((node, key) => node[key], loaded.config);
      expect(leaf).toBe(value[env]);
      expect(loaded.sources[dotted]).toBe(`${env} (env)`);
      expect(loaded.provenance[dotted]).toBe(`${env} (env)`);
    },
  );

  test('a list variable (AUTHORIZED_CIDR, NOTIFY_EMAIL) is split at commas, trimmed, empty items dropped', () => {
    const loaded = loadConfig({ env: { AUTHORIZED_CIDR: ' 198.18.0.0/15 , ,10.0.0.0/8,', NOTIFY_EMAIL: 'a@example.com, b@example.com' } });
    expect(loaded.config.controlPlane.authorizedCidrs).toEqual(['198.18.0.0/15', '10.0.0.0/8']);
    expect(loaded.config.notify?.emails).toEqual(['a@example.com', 'b@example.com']);
    expect(loaded.sources['notify.emails']).toBe('NOTIFY_EMAIL (env)');
  });

  test('a whole-number variable is trimmed; a sign is read, a fraction or a word is refused naming the variable', () => {
    expect(loadConfig({ env: { CLUSTER_NODEPOOL_COUNT: ' 2 ' } }).config.tpu.slices).toBe(2);
    expect(issuesOf(() => loadConfig({ env: { CLUSTER_NODEPOOL_COUNT: '-1' } }))).toEqual(['CLUSTER_NODEPOOL_COUNT (env): number of slices must be at least 1, got -1']);
    expect(issuesOf(() => loadConfig({ env: { CLUSTER_NODEPOOL_COUNT: '2.5' } }))).toEqual(["CLUSTER_NODEPOOL_COUNT (env): must be a whole number, got '2.5'"]);
    expect(issuesOf(() => loadConfig({ env: { CLUSTER_NODEPOOL_COUNT: '2 slices' } }))).toEqual(["CLUSTER_NODEPOOL_COUNT (env): must be a whole number, got '2 slices'"]);
  });

  test.each([
    ['true', true],
    [' YES ', true],
    ['1', true],
    ['False', false],
    ['no', false],
    ['0', false],
  ])('a boolean variable: %j is %s', (value, expected) => {
    expect(loadConfig({ env: { DELETION_PROTECTION: value } }).config.deletionProtection).toBe(expected);
  });

  test('a boolean variable that is neither: refused, naming the variable and the value as given', () => {
    expect(issuesOf(() => loadConfig({ env: { DELETION_PROTECTION: 'y' } }))).toEqual(["DELETION_PROTECTION (env): must be true or false, got 'y'"]);
    expect(issuesOf(() => loadConfig({ env: { ALLOW_PUBLIC_CONTROL_PLANE: 'on' } }))).toEqual(["ALLOW_PUBLIC_CONTROL_PLANE (env): must be true or false, got 'on'"]);
  });

  test('RUN_ID and CLOUD_IMAGE_NAME reach every recipe, also those the file does not list, each named as the source', () => {
    const file = configFile((c) => delete c.pipelines);
    const image = 'us-docker.pkg.dev/acme/images/maxtext:1';
    const loaded = loadConfig({ env: { RUN_ID: 'r9', CLOUD_IMAGE_NAME: image }, file });
    for (const name of Object.keys(RECIPES)) {
      expect(loaded.config.pipelines[name]).toMatchObject({ runId: 'r9', image });
      expect(loaded.sources[`pipelines.${name}.runId`]).toBe('RUN_ID (env)');
      expect(loaded.sources[`pipelines.${name}.image`]).toBe('CLOUD_IMAGE_NAME (env)');
    }
    // Without them, a file without pipelines gets no entries from the environment.
    expect(loadConfig({ env: {}, file }).config.pipelines).toEqual({});
  });

  test('a variable sets a key under a block the file holds as something else than an object', () => {
    const file = configFile((c) => (c.controlPlane = 'open'));
    const loaded = loadConfig({ env: { AUTHORIZED_CIDR: '198.18.0.0/15' }, file });
    expect(loaded.config.controlPlane.authorizedCidrs).toEqual(['198.18.0.0/15']);
    expect(loaded.sources['controlPlane.authorizedCidrs']).toBe('AUTHORIZED_CIDR (env)');
  });

  test('an empty variable is unset; a value of exactly MAX_ENV_VALUE_LENGTH is read, one character more is refused', () => {
    expect(loadConfig({ env: { PROJECT: '' } }).config.project).toBe('my-tpu-project');
    expect(MAX_ENV_VALUE_LENGTH).toBe(4096);
    const exact = 'x'.repeat(MAX_ENV_VALUE_LENGTH);
    // Read (and then refused by the project rules, naming its value): the length rule let it through.
    expect(issuesOf(() => loadConfig({ env: { PROJECT: exact } }))[0]).toMatch(/^PROJECT \(env\): must be a Google Cloud project id/);
    expect(issuesOf(() => loadConfig({ env: { PROJECT: `${exact}x` } }))).toEqual(['PROJECT (env): is 4097 characters long; at most 4096 are read']);
  });

  test('every problem of the environment layer is reported at once', () => {
    expect(issuesOf(() => loadConfig({ env: { DNS_ENDPOINT: 'maybe', CLUSTER_NODEPOOL_COUNT: 'x', TPU_TYPE: 'v9', IDENTITY_FROM: 'both', SERVE: 'nope' } }))).toHaveLength(5);
  });
});

describe('capacity pairs: a variable replaces the file\'s capacity and reservation as one unit', () => {
  test('TPU_CAPACITY=spot drops the file\'s reservation; both halves are then the variable\'s', () => {
    const loaded = loadConfig({ env: { TPU_CAPACITY: 'spot' } });
    expect(loaded.config.tpu.capacity).toBe('spot');
    expect(loaded.config.tpu.reservation).toBeUndefined();
    expect(loaded.sources['tpu.capacity']).toBe('TPU_CAPACITY (env)');
    expect(loaded.sources['tpu.reservation']).toBe('TPU_CAPACITY (env)');
  });

  test("RESERVATION over a file on spot: the file's spot is dropped, the reservation is used", () => {
    const file = configFile((c) => {
      c.tpu.capacity = 'spot';
      delete c.tpu.reservation;
    });
    const loaded = loadConfig({ env: { RESERVATION: 'acme-v6e-32' }, file });
    expect(loaded.config.tpu.reservation).toBe('acme-v6e-32');
    expect(loaded.config.tpu.capacity).toBeUndefined();
    expect(loaded.sources['tpu.capacity']).toBe('RESERVATION (env)');
  });

  test('the single-host pair, the same way; either variable turns the single-host pool on', () => {
    const spot = loadConfig({ env: { SINGLE_HOST_CAPACITY: 'spot' } });
    expect(spot.config.singleHost).toMatchObject({ enabled: true, capacity: 'spot' });
    expect(spot.config.singleHost?.reservation).toBeUndefined();
    expect(spot.sources['singleHost.enabled']).toBe('SINGLE_HOST_CAPACITY (env)');
    expect(spot.sources['singleHost.reservation']).toBe('SINGLE_HOST_CAPACITY (env)');
    const both = loadConfig({ env: { SINGLE_HOST_RESERVATION: 'acme-v6e-8', SINGLE_HOST_CAPACITY: 'reservation' } });
    expect(both.sources['singleHost.enabled']).toBe('SINGLE_HOST_RESERVATION (env)');
    expect(both.sources['singleHost.capacity']).toBe('SINGLE_HOST_CAPACITY (env)');
    // The main pool's pair is left alone.
    expect(both.config.tpu).toMatchObject({ capacity: 'reservation', reservation: 'my-v6e-32-reservation' });
    expect(both.sources['tpu.capacity']).toBeUndefined();
  });

  test('a file without the block: the variable builds it', () => {
    const file = configFile((c) => delete c.singleHost);
    const loaded = loadConfig({ env: { SINGLE_HOST_RESERVATION: 'acme-v6e-8' }, file });
    expect(loaded.config.singleHost).toMatchObject({ enabled: true, reservation: 'acme-v6e-8' });
  });
});

describe('REGION from ZONE', () => {
  test('ZONE alone gives its region (trimmed); REGION set wins; neither leaves the file\'s', () => {
    const derived = loadConfig({ env: { ZONE: ' europe-west4-a ' } });
    expect([derived.config.region, derived.config.zone, derived.sources.region]).toEqual(['europe-west4', 'europe-west4-a', 'ZONE (env)']);
    const both = loadConfig({ env: { ZONE: 'us-central1-a', REGION: 'us-central1' } });
    expect(both.sources.region).toBe('REGION (env)');
    expect(loadConfig({ env: {} }).sources.region).toBeUndefined();
  });
});

describe('TPU_TYPE: an accelerator type read through the TPU table', () => {
  test('alone: the machine type and topology it names, fewest VMs first, both attributed to TPU_TYPE', () => {
    const loaded = loadConfig({ env: { TPU_TYPE: ' v6e-8 ' } });
    expect(loaded.config.tpu).toMatchObject({ machineType: 'ct6e-standard-8t', topology: '2x4' });
    expect(loaded.sources['tpu.machineType']).toBe('TPU_TYPE (env)');
    expect(loaded.sources['tpu.topology']).toBe('TPU_TYPE (env)');
  });

  test('with a COMPUTE_TYPE that agrees: that shape, and the variable that set each half stays its source', () => {
    const loaded = loadConfig({ env: { TPU_TYPE: 'v6e-8', COMPUTE_TYPE: 'ct6e-standard-4t' } });
    expect(loaded.config.tpu).toMatchObject({ machineType: 'ct6e-standard-4t', topology: '2x4' });
    expect(loaded.sources['tpu.machineType']).toBe('COMPUTE_TYPE (env)');
    expect(loaded.sources['tpu.topology']).toBe('TPU_TYPE (env)');
    const topology = loadConfig({ env: { TPU_TYPE: 'v6e-32', TOPOLOGY: '4x8' } });
    expect(topology.sources['tpu.topology']).toBe('TOPOLOGY (env)');
    expect(topology.sources['tpu.machineType']).toBe('TPU_TYPE (env)');
  });

  test('disagreeing with COMPUTE_TYPE, TOPOLOGY or both: one error naming each variable set and its value', () => {
    expect(issuesOf(() => loadConfig({ env: { TPU_TYPE: 'v6e-8', TOPOLOGY: '4x4' } }))).toEqual([
      "TPU_TYPE (env): 'v6e-8' is ct6e-standard-8t 2x4 or ct6e-standard-4t 2x4, but TOPOLOGY (env) is '4x4'; make them agree or unset one",
    ]);
    expect(issuesOf(() => loadConfig({ env: { TPU_TYPE: 'v6e-32', COMPUTE_TYPE: 'ct6e-standard-8t' } }))).toEqual([
      "TPU_TYPE (env): 'v6e-32' is ct6e-standard-4t 4x8, but COMPUTE_TYPE (env) is 'ct6e-standard-8t'; make them agree or unset one",
    ]);
    expect(issuesOf(() => loadConfig({ env: { TPU_TYPE: 'v6e-8', TOPOLOGY: '4x4', COMPUTE_TYPE: 'ct6e-standard-4t' } }))).toEqual([
      "TPU_TYPE (env): 'v6e-8' is ct6e-standard-8t 2x4 or ct6e-standard-4t 2x4, but COMPUTE_TYPE (env) is 'ct6e-standard-4t' and TOPOLOGY (env) is '4x4'; make them agree or unset one",
    ]);
  });

  test("the file's machine type and topology do not constrain it (the variable replaces them)", () => {
    const file = configFile((c) => Object.assign(c.tpu, { machineType: 'ct6e-standard-8t', topology: '2x4' }));
    expect(loadConfig({ env: { TPU_TYPE: 'v6e-32' }, file }).config.tpu).toMatchObject({ machineType: 'ct6e-standard-4t', topology: '4x8' });
  });

  test('an accelerator type the table does not have: refused with examples from the table, trimmed', () => {
    expect(issuesOf(() => loadConfig({ env: { TPU_TYPE: ' v9-8 ' } }))).toEqual([
      "TPU_TYPE (env): must be a Cloud TPU accelerator type of the TPU table such as v5litepod-8, v5p-8, v6e-8 or tpu7x-8, got 'v9-8'",
    ]);
  });
});

describe("TPU_NAME: tutorial 002's TPU VM", () => {
  test('alone: one v6e-8 VM on the main capacity, attributed to TPU_NAME, with one notice and no "not read" note', () => {
    const loaded = loadConfig({ env: { TPU_NAME: 'my-vm' } });
    expect(loaded.config.tpu).toMatchObject({ machineType: 'ct6e-standard-8t', topology: '2x4', slices: 1 });
    for (const p of ['tpu.machineType', 'tpu.topology', 'tpu.slices']) expect(loaded.sources[p]).toBe('TPU_NAME (env)');
    expect(loaded.notices.filter((n) => n.startsWith('TPU_NAME'))).toEqual([
      "TPU_NAME is set (tutorial 002's TPU VM) without TPU_TYPE, COMPUTE_TYPE or TOPOLOGY: the TPU pool is that VM, one ct6e-standard-8t 2x4 (v6e-8) " +
        'on the main capacity (RESERVATION); GKE names the node, so the value itself is not used. Set TPU_TYPE (e.g. TPU_TYPE=v6e-32) for another shape',
    ]);
  });

  test('with CLUSTER_NODEPOOL_COUNT: that many VMs, the count attributed to its own variable', () => {
    const loaded = loadConfig({ env: { TPU_NAME: 'my-vm', CLUSTER_NODEPOOL_COUNT: '3' } });
    expect(loaded.config.tpu).toMatchObject({ machineType: 'ct6e-standard-8t', slices: 3 });
    expect(loaded.sources['tpu.slices']).toBe('CLUSTER_NODEPOOL_COUNT (env)');
  });

  test.each(['TPU_TYPE', 'COMPUTE_TYPE', 'TOPOLOGY'])('with %s set: the shape variable wins, TPU_NAME is noted as not read', (name) => {
    const value: Record<string, string> = { TPU_TYPE: 'v6e-32', COMPUTE_TYPE: 'ct6e-standard-4t', TOPOLOGY: '4x8' };
    const loaded = loadConfig({ env: { TPU_NAME: 'my-vm', [name]: value[name] } });
    expect(loaded.config.tpu).toMatchObject({ machineType: 'ct6e-standard-4t', topology: '4x8' });
    expect(loaded.sources['tpu.topology']).not.toBe('TPU_NAME (env)');
    expect(loaded.notices.filter((n) => n.startsWith('TPU_NAME'))).toEqual([
      'TPU_NAME is set but not read by this program: GKE names the TPU nodes; the single-host pipeline sets TPU_NAME to its pod name',
    ]);
  });
});

describe('PIPELINES, SERVE and REHEARSE', () => {
  test('PIPELINES lists exactly the pipelines on; each named in the file keeps its other keys', () => {
    const loaded = loadConfig({ env: { PIPELINES: ' rl-gemma4 ,, sft-gemma4' } });
    expect(loaded.pipelinesSelected).toBe(true);
    expect(Object.fromEntries(Object.entries(loaded.config.pipelines).map(([n, p]) => [n, p.enabled]))).toEqual({
      'rl-qwen3': false,
      'rl-gemma4': true,
      'sft-gemma4': true,
      'rl-llama3': false,
    });
    expect(loaded.config.pipelines['rl-qwen3'].runId).toBe('r1');
    expect(loaded.sources['pipelines.rl-qwen3.enabled']).toBe('PIPELINES (env)');
    // An entry the file has is the file's; only the enabled switch is the variable's.
    expect(loaded.sources['pipelines.rl-qwen3']).toBeUndefined();
    expect(sourceOf(loaded, 'pipelines.rl-qwen3.runId')).toBe('config/example.json: pipelines.rl-qwen3.runId');
  });

  test('PIPELINES=none (trimmed) turns every pipeline off; unset, the file decides', () => {
    const none = loadConfig({ env: { PIPELINES: ' none ' } });
    expect(Object.values(none.config.pipelines).map((p) => p.enabled)).toEqual([false, false, false, false]);
    const unset = loadConfig({ env: {} });
    expect(unset.pipelinesSelected).toBe(false);
    expect(unset.sources['pipelines.rl-qwen3.enabled']).toBeUndefined();
  });

  test('PIPELINES naming a preset the file does not list: an entry attributed to PIPELINES', () => {
    const file = configFile((c) => delete c.pipelines['rl-gemma4']);
    const loaded = loadConfig({ env: { PIPELINES: 'rl-gemma4' }, file });
    expect(loaded.config.pipelines['rl-gemma4']).toMatchObject({ enabled: true });
    expect(loaded.sources['pipelines.rl-gemma4']).toBe('PIPELINES (env)');
    expect(sourceOf(loaded, 'pipelines.rl-gemma4.runId')).toBe('PIPELINES (env)');
  });

  test("SERVE turns serve.enabled on for each named pipeline, keeping the file's serve keys, attributed to SERVE", () => {
    const file = configFile((c) => (c.pipelines['rl-qwen3'].serve = { enabled: false, maxModelLen: 8192 }));
    const loaded = loadConfig({ env: { SERVE: ' rl-qwen3 , sft-gemma4,rl-qwen3' }, file });
    expect(loaded.config.pipelines['rl-qwen3'].serve).toMatchObject({ enabled: true, maxModelLen: 8192 });
    expect(loaded.config.pipelines['sft-gemma4'].serve).toMatchObject({ enabled: true });
    expect(loaded.config.pipelines['rl-gemma4'].serve?.enabled ?? false).toBe(false);
    expect(loaded.sources['pipelines.rl-qwen3.serve.enabled']).toBe('SERVE (env)');
    expect(loaded.sources['pipelines.sft-gemma4.serve.enabled']).toBe('SERVE (env)');
  });

  test.each([
    ['a string', 'on', "Expected object, received string, got 'on'"],
    ['an array', ['on'], 'Expected object, received array'],
    ['a number', 1, 'Expected object, received number'],
  ])("SERVE naming a pipeline whose file serve is %s: the file's key is refused, not replaced", (_kind, value, message) => {
    const file = configFile((c) => (c.pipelines['rl-qwen3'].serve = value));
    const issues = issuesOf(() => loadConfig({ env: { SERVE: 'rl-qwen3' }, file }));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toContain(`${file}: pipelines.rl-qwen3.serve: ${message}`);
    expect(issuesOf(() => loadConfig({ env: {}, file }))).toEqual(issues);
  });

  test('SERVE naming a pipeline whose file entry is not an object: the file key is refused', () => {
    const file = configFile((c) => (c.pipelines['rl-qwen3'] = 'on'));
    const issues = issuesOf(() => loadConfig({ env: { SERVE: 'rl-qwen3' }, file }));
    expect(issues).toEqual(issuesOf(() => loadConfig({ env: {}, file })));
    expect(issues.join('\n')).toContain(`${file}: pipelines.rl-qwen3: Expected object, received string, got 'on'`);
  });

  test('SERVE naming a preset the file does not list: its entry is made, serving on', () => {
    const file = configFile((c) => delete c.pipelines);
    expect(loadConfig({ env: { SERVE: 'rl-gemma4' }, file }).config.pipelines['rl-gemma4'].serve).toMatchObject({ enabled: true });
  });

  test('SERVE naming no pipeline: refused, naming the stack it asked for and the pipelines there are', () => {
    expect(issuesOf(() => loadConfig({ env: { SERVE: 'rl-qwen3,rl-qwen' } }))).toEqual([
      "SERVE (env): no pipeline named 'rl-qwen' to serve (stack serve-rl-qwen); pipelines: rl-qwen3, rl-gemma4, sft-gemma4, rl-llama3",
    ]);
  });

  test('SERVE naming the pipeline serve-<x> itself (its own stack) asks for that pipeline, not a server of it', () => {
    const file = configFile((c) => (c.pipelines.x = { extends: 'rl-qwen3' }));
    const loaded = loadConfig({ env: { SERVE: 'x' }, file });
    expect(loaded.config.pipelines.x.serve).toMatchObject({ enabled: true });
    const named = configFile((c) => (c.pipelines['serve-x'] = { extends: 'rl-qwen3' }));
    const plain = loadConfig({ env: { SERVE: 'x' }, file: named });
    expect(plain.config.pipelines['serve-x'].serve?.enabled ?? false).toBe(false);
    expect(plain.config.pipelines.x).toBeUndefined();
  });

  test('REHEARSE: the names it lists, trimmed, each once; unset or only commas: none', () => {
    expect(loadConfig({ env: { REHEARSE: ' rl-qwen3, ,sft-gemma4,rl-qwen3 ' } }).rehearse).toEqual(['rl-qwen3', 'sft-gemma4']);
    expect(loadConfig({ env: { REHEARSE: ' , ' } })).not.toHaveProperty('rehearse');
    expect(loadConfig({ env: {} })).not.toHaveProperty('rehearse');
  });
});

describe('identity: the file owns it, IDENTITY_FROM says which wins', () => {
  const prod = () =>
    configFile((c) => Object.assign(c, { project: 'acme-prod', clusterName: 'prod-tpu', bucket: 'acme-prod-ckpt', stateBucket: 'acme-prod-tf' }));

  test('IDENTITY_FROM=file (trimmed): the file\'s values, their source the file again', () => {
    const file = prod();
    const loaded = loadConfig({ env: { PROJECT: 'acme-dev', IDENTITY_FROM: ' file ' }, file });
    expect(loaded.config.project).toBe('acme-prod');
    expect(loaded.sources.project).toBeUndefined();
    expect(loaded.provenance.project).toBe(`${file}: project`);
    expect(loaded.notices).toContain(`IDENTITY_FROM=file: ${file} wins over the environment, which is ignored for: PROJECT (env) is 'acme-dev', ${file}: project is 'acme-prod'`);
    expect(loaded.origin.variables).toEqual([]);
  });

  test('IDENTITY_FROM=env: the variable\'s values, one notice naming both', () => {
    const file = prod();
    const loaded = loadConfig({ env: { PROJECT: 'acme-dev', STATE_BUCKET: 'acme-dev-tf', IDENTITY_FROM: 'env' }, file });
    expect(loaded.config).toMatchObject({ project: 'acme-dev', stateBucket: 'acme-dev-tf' });
    expect(loaded.notices).toContain(
      `IDENTITY_FROM=env: the environment wins over ${file}: PROJECT (env) is 'acme-dev', ${file}: project is 'acme-prod'; STATE_BUCKET (env) is 'acme-dev-tf', ${file}: stateBucket is 'acme-prod-tf'`,
    );
  });

  test('IDENTITY_FROM with no conflict: no notice; an invalid value is refused even with the example', () => {
    expect(loadConfig({ env: { IDENTITY_FROM: 'env' }, file: prod() }).notices.filter((n) => n.startsWith('IDENTITY_FROM'))).toEqual([]);
    expect(issuesOf(() => loadConfig({ env: { IDENTITY_FROM: 'ENV' } }))).toEqual([
      "IDENTITY_FROM (env): must be env or file (which wins when the config file and the environment disagree on project, clusterName, region, bucket, stateBucket, zone, tpu.reservation, singleHost.reservation, notify.emails), got 'ENV'",
    ]);
  });

  test('a file without a state bucket: STATE_BUCKET fills it, no conflict', () => {
    const file = configFile((c) => Object.assign(c, { project: 'acme-prod' }));
    expect(loadConfig({ env: { STATE_BUCKET: 'acme-dev-tf' }, file }).config.stateBucket).toBe('acme-dev-tf');
  });

  test('the example config (by CONFIG_FILE too) owns no identity: the environment fills it', () => {
    const loaded = loadConfig({ env: { CONFIG_FILE: 'config/example.json', PROJECT: 'acme-dev', CLUSTER_NAME: 'dev-tpu', REGION: 'us-central1', ZONE: 'us-central1-a' } });
    expect(loaded.config).toMatchObject({ project: 'acme-dev', clusterName: 'dev-tpu', region: 'us-central1' });
  });

  test("a file that copied the example's placeholder project: the environment fills it; its own cluster name conflicts", () => {
    const file = configFile(() => undefined);
    expect(loadConfig({ env: { PROJECT: 'acme-dev' }, file }).config.project).toBe('acme-dev');
    expect(issuesOf(() => loadConfig({ env: { REGION: 'us-central1', ZONE: 'us-central1-a' }, file }))).toEqual([
      `REGION (env) is 'us-central1', ${file}: region is 'us-east5': the config file and the environment name different deployments; unset REGION to use the file's, or say which wins: IDENTITY_FROM=file (the file's) or IDENTITY_FROM=env (the environment's)`,
      `ZONE (env) is 'us-central1-a', ${file}: zone is 'us-east5-b': the config file and the environment name different deployments; unset ZONE to use the file's, or say which wins: IDENTITY_FROM=file (the file's) or IDENTITY_FROM=env (the environment's)`,
    ]);
  });
});

describe('notices', () => {
  test.each([
    ['MODEL_NAME', 'each pipeline recipe names its model; choose pipelines with PIPELINES (e.g. PIPELINES=rl-qwen3)'],
    ['CLUSTER_TOOLKIT_VERSION', 'no Cluster Toolkit is used: the infra stack builds the cluster'],
    ['TPU_NAME', 'GKE names the TPU nodes; the single-host pipeline sets TPU_NAME to its pod name'],
    [
      'HF_TOKEN',
      `the token never enters Terraform; store it once with: printf '%s' "$HF_TOKEN" | gcloud secrets versions add tpu-post-train-hf-token --project=acme-tpu-prod --data-file=- (its value was not read)`,
    ],
  ])('%s set: one line saying it is not read and why', (name, why) => {
    // TOPOLOGY: TPU_NAME alone would choose tutorial 002's VM instead.
    const notices = loadConfig({ env: { ...REAL, [name]: 'some-value', TOPOLOGY: '4x8' } }).notices;
    expect(notices).toEqual([`${name} is set but not read by this program: ${why}`]);
    expect(Object.keys(UNREAD_TUTORIAL_VARIABLES)).toContain(name);
  });

  test('a tutorial variable set empty counts as unset: no notice', () => {
    expect(loadConfig({ env: { ...REAL, MODEL_NAME: '', HF_TOKEN: '' } }).notices).toEqual([]);
  });

  test('node pools: the single-host pool counts too (system + CPU + slices + single-host)', () => {
    const notices = loadConfig({ env: { ...REAL, CLUSTER_NODEPOOL_COUNT: '198', SINGLE_HOST_RESERVATION: 'acme-v6e-8' } }).notices;
    expect(notices).toEqual([
      "CLUSTER_NODEPOOL_COUNT (env): 201 node pools: above 200 GKE's cluster autoscaler slows down (GKE \"Configure node pool auto-creation\"); the CPU pool may take longer to scale",
    ]);
  });

  test("the example's placeholders in one line, each with the variable that replaces it", () => {
    const notices = loadConfig({ env: {} }).notices;
    expect(notices).toEqual([
      'placeholders of the example config still set (synth works; a plan stops on them, before anything is created): ' +
        "project 'my-tpu-project' (set PROJECT); bucket 'my-tpu-project-post-training' (set GCS_BUCKET); " +
        "tpu.reservation 'my-v6e-32-reservation' (set RESERVATION); controlPlane.authorizedCidrs '203.0.113.0/24' (set AUTHORIZED_CIDR)",
    ]);
  });

  test('a misspelled variable in a load: its note; the value is never read', () => {
    expect(loadConfig({ env: { ...REAL, TOPOLGY: '4x4' } }).notices).toEqual([
      'TOPOLGY is set but not read by this program: did you mean TOPOLOGY? (its value was not read)',
    ]);
  });
});

describe('placeholders', () => {
  test("a reservation name from the example is a placeholder in either pool (the example's other reservation too)", () => {
    const placeholders = loadConfig({ env: { RESERVATION: 'my-v6e-8-reservation' } }).placeholders;
    expect(placeholders.filter((p) => p.path === 'tpu.reservation')).toEqual([
      { path: 'tpu.reservation', env: 'RESERVATION', value: 'my-v6e-8-reservation', description: "tpu.reservation 'my-v6e-8-reservation' (set RESERVATION)" },
    ]);
  });

  test('every PLACEHOLDER_FIELDS path of the example is found; none once each is replaced', () => {
    const file = configFile((c) => (c.singleHost.enabled = true));
    const found = loadConfig({ env: {}, file }).placeholders.map((p) => `${p.path} ${p.env}`);
    expect(found).toEqual([
      'project PROJECT',
      'bucket GCS_BUCKET',
      'tpu.reservation RESERVATION',
      'singleHost.reservation SINGLE_HOST_RESERVATION',
      'controlPlane.authorizedCidrs AUTHORIZED_CIDR',
    ]);
    expect(PLACEHOLDER_FIELDS).toHaveLength(found.length);
    expect(loadConfig({ env: REAL }).placeholders).toEqual([]);
  });

  test("a project that merely contains the example's value is not a placeholder", () => {
    expect(loadConfig({ env: { ...REAL, PROJECT: 'my-tpu-project-2' } }).placeholders).toEqual([]);
  });
});

describe('where a value came from', () => {
  test('origin: the default file, the variables in the documented order, each once', () => {
    const loaded = loadConfig({ env: { TOPOLOGY: '4x4', PROJECT: 'acme-tpu-prod', TPU_CAPACITY: 'spot' } });
    expect(loaded.origin).toEqual({
      configFile: 'config/example.json',
      variables: ['PROJECT', 'TOPOLOGY', 'TPU_CAPACITY'],
      builtFrom: 'config/example.json (the default: CONFIG_FILE unset) and env PROJECT, TOPOLOGY, TPU_CAPACITY',
    });
  });

  test('origin: CONFIG_FILE named as such; a file passed in is named plainly; none set: no environment variable', () => {
    const file = configFile(() => undefined);
    expect(loadConfig({ env: { CONFIG_FILE: file } }).origin.builtFrom).toBe(`${file} (CONFIG_FILE) and no environment variable`);
    expect(loadConfig({ env: {}, file }).origin.builtFrom).toBe(`${file} and no environment variable`);
    expect(loadConfig({ env: {}, file: 'config/example.json' }).origin.builtFrom).toBe('config/example.json (the default: CONFIG_FILE unset) and no environment variable');
  });

  test('a file inside the repository is named relative to it, one outside by its absolute path', () => {
    const root = findRepoRoot();
    expect(loadConfig({ env: {}, file: path.join(root, 'config', 'example.json') }).file).toBe(path.join('config', 'example.json'));
    const outside = configFile(() => undefined);
    expect(path.isAbsolute(outside)).toBe(true);
    expect(loadConfig({ env: {}, file: outside }).file).toBe(outside);
  });

  test('provenance: every leaf, an array as one value, the file key or the variable', () => {
    const loaded = loadConfig({ env: { AUTHORIZED_CIDR: '198.18.0.0/15' } });
    expect(loaded.provenance['controlPlane.authorizedCidrs']).toBe('AUTHORIZED_CIDR (env)');
    expect(loaded.provenance['controlPlane.authorizedCidrs.0']).toBeUndefined();
    expect(loaded.provenance['controlPlane.dnsEndpoint']).toBe('config/example.json: controlPlane.dnsEndpoint');
    expect(loaded.provenance.controlPlane).toBeUndefined();
    expect(loaded.provenance['pipelines.rl-qwen3.runId']).toBe('config/example.json: pipelines.rl-qwen3.runId');
    expect(Object.keys(loaded.provenance)).not.toContain('');
  });

  test('sourceOf: the nearest attributed parent, else the file key', () => {
    const loaded = { file: 'f.json', sources: { pipelines: 'X (env)', 'tpu.topology': 'TOPOLOGY (env)' } };
    expect(sourceOf(loaded, 'pipelines.a.b')).toBe('X (env)');
    expect(sourceOf(loaded, 'tpu.topology')).toBe('TOPOLOGY (env)');
    expect(sourceOf(loaded, 'tpu.slices')).toBe('f.json: tpu.slices');
    expect(sourceOf(loaded, 'zone')).toBe('f.json: zone');
  });
});

describe('schema errors: where, the value and what fits', () => {
  test('an enum names the options and the value', () => {
    expect(issuesOf(() => loadConfig({ env: { TPU_CAPACITY: 'cheap' } }))).toEqual([
      "TPU_CAPACITY (env): must be one of reservation, spot, flex-start, got 'cheap'",
    ]);
  });

  test('a key the file lacks is "required", named by its file key', () => {
    const file = configFile((c) => delete c.project);
    expect(issuesOf(() => loadConfig({ env: {}, file }))).toEqual([`${file}: project: is required`]);
  });

  test('a number, a boolean and null are shown as JSON; an object is not shown', () => {
    const file = configFile((c) => {
      c.tpu.slices = 'two';
      c.deletionProtection = 'yes';
      c.namespace = null;
    });
    const issues = issuesOf(() => loadConfig({ env: {}, file }));
    expect(issues).toContainEqual(expect.stringMatching(new RegExp(`^${file}: tpu\\.slices: .*, got 'two'$`)));
    expect(issues).toContainEqual(expect.stringMatching(new RegExp(`^${file}: deletionProtection: .*, got 'yes'$`)));
    expect(issues).toContainEqual(expect.stringMatching(new RegExp(`^${file}: namespace: .*, got null$`)));
    const objectFile = configFile((c) => (c.zone = { name: 'us-east5-b' }));
    expect(issuesOf(() => loadConfig({ env: {}, file: objectFile }))).toEqual([`${objectFile}: zone: Expected string, received object`]);
  });

  test('a number out of range is shown as a number; a long value is cut at 200 characters', () => {
    const file = configFile((c) => (c.tpu.slices = 0));
    expect(issuesOf(() => loadConfig({ env: {}, file }))).toEqual([`${file}: tpu.slices: number of slices must be at least 1, got 0`]);
    const long = `a${'b'.repeat(300)}`;
    const issue = issuesOf(() => loadConfig({ env: { PROJECT: long } }))[0];
    expect(issue).toContain(`got '${long.slice(0, 199)}...`);
    expect(issue).not.toContain(long.slice(0, 200));
  });

  test('a related field from another source is named with its value and source; from the same source it is not', () => {
    expect(issuesOf(() => loadConfig({ env: { REGION: 'europe-west4' } }))).toEqual([
      "config/example.json: zone: zone must be one of europe-west4-a, europe-west4-b, europe-west4-c (the zones of region europe-west4), got 'us-east5-b' (region 'europe-west4' from REGION (env))",
    ]);
    const file = configFile((c) => (c.zone = 'us-central1-a'));
    expect(issuesOf(() => loadConfig({ env: {}, file }))).toEqual([
      `${file}: zone: zone must be one of us-east5-a, us-east5-b, us-east5-c (the zones of region us-east5), got 'us-central1-a'`,
    ]);
    expect(issuesOf(() => loadConfig({ env: { ...REAL, STATE_BUCKET: 'acme-post-train-ckpt' } }))).toEqual([
      "STATE_BUCKET (env): the state bucket must not be the checkpoint bucket 'acme-post-train-ckpt': infra creates, manages and may destroy the checkpoint bucket, so its own state would live inside what it deletes; use a separate bucket for Terraform state, got 'acme-post-train-ckpt' (bucket 'acme-post-train-ckpt' from GCS_BUCKET (env))",
    ]);
  });

  test('a problem of the whole file is named by the file', () => {
    const file = configFile((c) => (c.extra = 1));
    expect(issuesOf(() => loadConfig({ env: {}, file }))).toEqual([`${file}: Unrecognized key(s) in object: 'extra'`]);
  });
});

describe('the config file: strict UTF-8 JSON, one object', () => {
  const body = () => example();

  test.each([
    ['a UTF-8 byte-order mark', () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body())]), 'starts with a UTF-8 byte-order mark (\\ufeff); save the config as UTF-8 without a byte-order mark'],
    ['UTF-16 LE', () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(body(), 'utf16le')]), 'is UTF-16 (byte-order mark 0xfffe); save the config as UTF-8 without a byte-order mark'],
    ['UTF-16 BE', () => Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(body(), 'utf16le').swap16()]), 'is UTF-16 (byte-order mark 0xfeff); save the config as UTF-8 without a byte-order mark'],
    ['UTF-16 without a mark', () => Buffer.from(body(), 'utf16le'), 'holds a NUL byte at offset 1 (UTF-16 without a byte-order mark, or not text); save the config as UTF-8 without a byte-order mark'],
    ['a NUL byte later', () => Buffer.from(`{"a":"b\u0000"}`), 'holds a NUL byte at offset 7 (UTF-16 without a byte-order mark, or not text); save the config as UTF-8 without a byte-order mark'],
    ['bytes that are not UTF-8', () => Buffer.concat([Buffer.from('{"project": "a'), Buffer.from([0xe9]), Buffer.from('"}')]), 'is not valid UTF-8; save the config as UTF-8 without a byte-order mark'],
  ])('%s is refused, naming the file', (_what, bytes, why) => {
    const file = rawFile(bytes());
    expect(issuesOf(() => loadConfig({ env: {}, file }))).toEqual([`${file}: ${why}`]);
  });

  test('a byte-order mark alone in part (0xef 0xbb, 0xff 0x00) is not taken for one', () => {
    const file = rawFile(Buffer.concat([Buffer.from([0xef, 0xbb]), Buffer.from(body())]));
    expect(issuesOf(() => loadConfig({ env: {}, file }))).toEqual([`${file}: is not valid UTF-8; save the config as UTF-8 without a byte-order mark`]);
    const ff = rawFile(Buffer.from([0xff, 0x7b, 0x7d]));
    expect(issuesOf(() => loadConfig({ env: {}, file: ff }))).toEqual([`${ff}: is not valid UTF-8; save the config as UTF-8 without a byte-order mark`]);
    const fe = rawFile(Buffer.from([0xfe, 0x7b, 0x7d]));
    expect(issuesOf(() => loadConfig({ env: {}, file: fe }))).toEqual([`${fe}: is not valid UTF-8; save the config as UTF-8 without a byte-order mark`]);
  });

  test('syntax errors with line and column, at most ten; comments and trailing commas are errors', () => {
    expect(issuesOf(() => loadConfig({ env: {}, file: rawFile('{\n  "a": 1,\n}') }))[0]).toMatch(/: not valid JSON: PropertyNameExpected at line 3, column 1$/);
    expect(issuesOf(() => loadConfig({ env: {}, file: rawFile('{\n  // note\n  "a": 1\n}') }))).toEqual([expect.stringMatching(/: not valid JSON: InvalidCommentToken at line 2, column 3$/)]);
    const many = rawFile(`{${Array.from({ length: 15 }, (_, i) => `"k${i}" 1`).join(', ')}}`);
    const issues = issuesOf(() => loadConfig({ env: {}, file: many }));
    expect(issues).toHaveLength(10);
    expect(issues[0]).toBe(`${many}: not valid JSON: ColonExpected at line 1, column 7`);
  });

  test('duplicate keys at any depth, with line and column, at most ten', () => {
    const file = rawFile('{\n"zone": "a",\n"zone": "b",\n"tpu": {"slices": 1, "slices": 2}\n}');
    expect(issuesOf(() => loadConfig({ env: {}, file }))).toEqual([
      `${file}: duplicate key 'zone' (line 3, column 1): JSON keeps only the last one; remove one`,
      `${file}: duplicate key 'tpu.slices' (line 4, column 22): JSON keeps only the last one; remove one`,
    ]);
    const many = rawFile(`{${Array.from({ length: 12 }, () => '"k": 1').join(', ')}}`);
    expect(issuesOf(() => loadConfig({ env: {}, file: many }))).toHaveLength(10);
  });

  test.each([['[1, 2]'], ['null'], ['"text"'], ['3']])('%s is refused: the file must hold a JSON object', (text) => {
    const file = rawFile(text);
    expect(issuesOf(() => loadConfig({ env: {}, file }))).toEqual([`${file}: the config file must hold a JSON object`]);
  });

  test('a directory, something that is not a regular file, a missing file and one that cannot be read', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-rules-'));
    expect(issuesOf(() => loadConfig({ env: {}, file: dir }))).toEqual([`${dir}: is a directory; name a JSON config file such as config/example.json`]);
    expect(issuesOf(() => loadConfig({ env: {}, file: '/dev/null' }))).toEqual(['/dev/null: is not a regular file; name a JSON config file such as config/example.json']);
    expect(issuesOf(() => loadConfig({ env: {}, file: path.join(dir, 'none.json') }))).toEqual([`${path.join(dir, 'none.json')}: cannot read config: file not found`]);
    const under = path.join(rawFile('{}'), 'x.json');
    expect(issuesOf(() => loadConfig({ env: {}, file: under }))).toEqual([expect.stringMatching(new RegExp(`^${under}: cannot read config: ENOTDIR: not a directory`))]);
  });

  test('a file of exactly MAX_CONFIG_FILE_BYTES is read; one byte more is refused with its size', () => {
    const text = example().trimEnd();
    const exact = rawFile(text + ' '.repeat(MAX_CONFIG_FILE_BYTES - Buffer.byteLength(text)));
    expect(loadConfig({ env: {}, file: exact }).config.project).toBe('my-tpu-project');
    const over = rawFile(`${fs.readFileSync(exact, 'utf8')} `);
    expect(issuesOf(() => loadConfig({ env: {}, file: over }))).toEqual([
      `${over}: config file is ${MAX_CONFIG_FILE_BYTES + 1} bytes; at most ${MAX_CONFIG_FILE_BYTES} are read (a config is a few KB)`,
    ]);
  });

  test('CONFIG_FILE: named as the source; empty means the default file; a relative path is read from the repository root', () => {
    expect(issuesOf(() => loadConfig({ env: { CONFIG_FILE: 'config/none.json' } }))).toEqual(['config/none.json (CONFIG_FILE): cannot read config: file not found']);
    expect(loadConfig({ env: { CONFIG_FILE: '' } }).file).toBe('config/example.json');
    expect(loadConfig({ env: { CONFIG_FILE: 'config/examples/../example.json' } }).file).toBe('config/example.json');
  });
});

describe('ConfigError: one line per distinct issue, escaped, secrets redacted', () => {
  test('the message lists each issue once, in order, under "invalid config:"', () => {
    const e = new ConfigError(['b: two', 'a: one', 'b: two']);
    expect(e.message).toBe('invalid config:\n  - b: two\n  - a: one');
    expect(e.name).toBe('ConfigError');
    expect(e.issues).toEqual(['b: two', 'a: one', 'b: two']);
  });

  test('a newline or a hidden character in an issue is escaped, so each issue stays one line', () => {
    const e = errorOf(() => loadConfig({ env: { PROJECT: 'acme\nprod\u200b' } }));
    expect(e.message.split('\n')).toHaveLength(2);
    expect(e.message).toContain("got 'acme\\nprod\\u200b'");
  });

  test('a token-shaped value is redacted in the message', () => {
    const token = ['hf', 'A'.repeat(30)].join('_');
    const e = errorOf(() => loadConfig({ env: { CLUSTER_NAME: token } }));
    expect(e.message).not.toContain(token);
    expect(e.message).toContain('CLUSTER_NAME (env)');
  });
});

describe('escapeText', () => {
  test('printable ASCII stays; the characters just outside it are escaped', () => {
    expect(escapeText(' ~AZaz09')).toBe(' ~AZaz09');
    expect(escapeText('\u001f\u007f\u0000')).toBe('\\u001f\\u007f\\u0000');
  });

  test('control characters by their JSON names; a newline only when the text must stay one line', () => {
    expect(escapeText('\r\t\b\f', true)).toBe('\\r\\t\\b\\f');
    expect(escapeText('a\nb')).toBe('a\nb');
    expect(escapeText('a\nb', true)).toBe('a\\nb');
  });

  test('non-ASCII as four-digit escapes, astral characters as their surrogate pair', () => {
    expect(escapeText('\u00e9\u200b\u{1F600}')).toBe('\\u00e9\\u200b\\ud83d\\ude00');
  });
});

describe('the repository root and the variables the program knows', () => {
  test('findRepoRoot finds the folder with package.json and charts/, and refuses where there is none', () => {
    const root = findRepoRoot();
    expect(fs.existsSync(path.join(root, 'package.json')) && fs.existsSync(path.join(root, 'charts'))).toBe(true);
    expect(findRepoRoot(path.join(root, 'config', 'examples'))).toBe(root);
    const lone = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-root-'));
    fs.writeFileSync(path.join(lone, 'package.json'), '{}');
    expect(() => findRepoRoot(lone)).toThrow(`cannot find the repository root (package.json + charts/) above ${lone}`);
  });

  test('knownVariables: every binding, the special variables and the tutorial variables noted as unread, each once', () => {
    const known = knownVariables();
    for (const b of ENV_BINDINGS) expect(known).toContain(b.env);
    for (const name of ['PIPELINES', 'SERVE', 'REHEARSE', 'TEARDOWN', 'TPU_TYPE', 'TPU_NAME', 'IDENTITY_FROM', 'CONFIG_FILE', ...Object.keys(UNREAD_TUTORIAL_VARIABLES)]) {
      expect(known).toContain(name);
    }
    expect(new Set(known).size).toBe(known.length);
  });

  test('REHEARSE is a variable the program reads: set, no note; misspelled, the note names it', () => {
    expect(misspelledVariables({ REHEARSE: 'rl-qwen3' })).toEqual([]);
    expect(misspelledVariables({ REHERSE: 'rl-qwen3' })).toEqual(['REHERSE is set but not read by this program: did you mean REHEARSE? (its value was not read)']);
  });

  test('misspelledVariables: one edit under 8 characters, two from 8; known names, short names and empty values: none', () => {
    expect(misspelledVariables({ ZOEN: 'a', TOPOLGOY: 'c', PIPELNES: 'd' })).toEqual([
      'PIPELNES is set but not read by this program: did you mean PIPELINES? (its value was not read)',
      'TOPOLGOY is set but not read by this program: did you mean TOPOLOGY? (its value was not read)',
      'ZOEN is set but not read by this program: did you mean ZONE? (its value was not read)',
    ]);
    // Two edits under 8 characters is too far; three from 8 on is too far.
    expect(misspelledVariables({ RGEINO: 'x', TOPLGOYY: 'y' })).toEqual([]);
    expect(misspelledVariables({ ZONE: 'a', ZON: 'b', zone_: 'c', ZONEE: '', ZONEX: undefined })).toEqual([]);
    expect(misspelledVariables({ SERVEE: 'x' })).toEqual(['SERVEE is set but not read by this program: did you mean SERVE? (its value was not read)']);
  });

  test('a name close to two known names names both', () => {
    expect(misspelledVariables({ TPU_NAPE: 'x' })).toEqual(['TPU_NAPE is set but not read by this program: did you mean TPU_TYPE or TPU_NAME? (its value was not read)']);
  });
});

describe('more edges, each a rule a user meets', () => {
  test('a documentation range the user set: one line of its own, naming where it was set and curl -4', () => {
    const loaded = loadConfig({ env: { ...REAL, AUTHORIZED_CIDR: '198.51.100.0/24,192.0.2.0/24' } });
    expect(loaded.notices).toEqual([
      "AUTHORIZED_CIDR (env): controlPlane.authorizedCidrs '198.51.100.0/24' is a documentation range (RFC 5737), no real address (set AUTHORIZED_CIDR to yours: curl -4 -s ifconfig.me); a plan stops on it, before anything is created",
      "AUTHORIZED_CIDR (env): controlPlane.authorizedCidrs '192.0.2.0/24' is a documentation range (RFC 5737), no real address (set AUTHORIZED_CIDR to yours: curl -4 -s ifconfig.me); a plan stops on it, before anything is created",
    ]);
    expect(loaded.placeholders.map((p) => [p.path, p.env, p.value])).toEqual([
      ['controlPlane.authorizedCidrs', 'AUTHORIZED_CIDR', '198.51.100.0/24'],
      ['controlPlane.authorizedCidrs', 'AUTHORIZED_CIDR', '192.0.2.0/24'],
    ]);
  });

  test("the example's placeholders and a documentation range together: the example's line, then the range's", () => {
    const notices = loadConfig({ env: { AUTHORIZED_CIDR: '192.0.2.0/24', GCS_BUCKET: 'acme-ckpt', RESERVATION: 'acme-v6e-32' } }).notices;
    expect(notices).toEqual([
      "placeholders of the example config still set (synth works; a plan stops on them, before anything is created): project 'my-tpu-project' (set PROJECT)",
      expect.stringMatching(/^AUTHORIZED_CIDR \(env\): controlPlane\.authorizedCidrs '192\.0\.2\.0\/24' is a documentation range/),
    ]);
  });

  test('a bucket name with dots: one notice naming the variable', () => {
    expect(loadConfig({ env: { ...REAL, GCS_BUCKET: 'ckpt.example.com' } }).notices).toEqual([
      "GCS_BUCKET (env): bucket name 'ckpt.example.com' contains dots: Cloud Storage creates it only if you have verified ownership of the domain 'ckpt.example.com' (Search Console); otherwise the deploy fails with 403; use dashes instead (e.g. 'ckpt-example-com')",
    ]);
  });

  test('200 node pools: no notice; 201: the notice', () => {
    expect(loadConfig({ env: { ...REAL, CLUSTER_NODEPOOL_COUNT: '198' } }).notices).toEqual([]);
    expect(loadConfig({ env: { ...REAL, CLUSTER_NODEPOOL_COUNT: '199' } }).notices).toEqual([expect.stringMatching(/^CLUSTER_NODEPOOL_COUNT \(env\): 201 node pools: above 200/)]);
  });

  test('the documented limits: 256 KiB of config file, 4096 characters of an environment value', () => {
    expect(MAX_CONFIG_FILE_BYTES).toBe(262144);
    expect(MAX_ENV_VALUE_LENGTH).toBe(4096);
  });

  test('a file holding pipelines as something else than an object, with RUN_ID set: the file key is refused, RUN_ID adds nothing', () => {
    const file = configFile((c) => (c.pipelines = 'all'));
    expect(issuesOf(() => loadConfig({ env: { RUN_ID: 'r2' }, file }))).toEqual([`${file}: pipelines: Expected object, received string, got 'all'`]);
    expect(issuesOf(() => loadConfig({ env: { SERVE: 'rl-qwen3' }, file }))).toEqual([`${file}: pipelines: Expected object, received string, got 'all'`]);
  });

  test('a value whose quoted form is exactly 200 characters is shown whole; 201 is cut', () => {
    const at = (n: number) => issuesOf(() => loadConfig({ env: { PROJECT: 'a'.repeat(n) } }))[0];
    expect(at(198)).toMatch(new RegExp(`, got '${'a'.repeat(198)}'$`));
    expect(at(199)).toMatch(new RegExp(`, got '${'a'.repeat(199)}\\.\\.\\.$`));
  });

  test('a boolean where a string belongs is shown as JSON', () => {
    const file = configFile((c) => (c.namespace = true));
    expect(issuesOf(() => loadConfig({ env: {}, file }))).toEqual([`${file}: namespace: Expected string, received boolean, got true`]);
  });

  test("the single-host reservation's error names the main pool's reservation when it came from elsewhere", () => {
    expect(issuesOf(() => loadConfig({ env: { SINGLE_HOST_CAPACITY: 'reservation' } }))).toEqual([
      "SINGLE_HOST_CAPACITY (env): capacity 'reservation' needs a reservation name; set it, or choose capacity 'spot' or 'flex-start' (reservation 'my-v6e-32-reservation' from config/example.json: tpu.reservation)",
    ]);
  });

  test('CONFIG_FILE with a file passed in: the file passed in is read, and named without CONFIG_FILE', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-rules-'));
    const missing = path.join(dir, 'none.json');
    expect(issuesOf(() => loadConfig({ env: { CONFIG_FILE: 'config/example.json' }, file: missing }))).toEqual([`${missing}: cannot read config: file not found`]);
    const file = configFile(() => undefined);
    expect(loadConfig({ env: { CONFIG_FILE: 'config/none.json' }, file }).origin.builtFrom).toBe(`${file} and no environment variable`);
    expect(loadConfig({ env: { CONFIG_FILE: '' } }).origin.builtFrom).toBe('config/example.json (the default: CONFIG_FILE unset) and no environment variable');
  });

  test('the first bytes alone decide a byte-order mark: 0xbb 0xbf later is only bad UTF-8', () => {
    const file = rawFile(Buffer.from([0x7b, 0xbb, 0xbf, 0x7d]));
    expect(issuesOf(() => loadConfig({ env: {}, file }))).toEqual([`${file}: is not valid UTF-8; save the config as UTF-8 without a byte-order mark`]);
  });

  test('misspelled names: the whole name must look like a variable; a 2-edit name of 8 characters is near, of 7 is not', () => {
    expect(misspelledVariables({ ZONEs: 'a', xZONE: 'b', 'ZONE-X': 'c' })).toEqual([]);
    expect(misspelledVariables({ TOPOLOXX: 'a', REGIOXX: 'b' })).toEqual(['TOPOLOXX is set but not read by this program: did you mean TOPOLOGY? (its value was not read)']);
  });
});

describe('edges found by the mutation run', () => {
  test('a ZONE that names no region leaves the region as it was: only the zone is refused', () => {
    expect(issuesOf(() => loadConfig({ env: { ZONE: 'nowhere' } }))).toEqual([
      "ZONE (env): zone must be one of us-east5-a, us-east5-b, us-east5-c (the zones of region us-east5), got 'nowhere' (region 'us-east5' from config/example.json: region)",
    ]);
  });

  test('every string variable of ENV_BINDINGS is one of the rows above', () => {
    expect(ENV_BINDINGS.filter((b) => b.kind === 'string' && !b.path.startsWith('pipelines.')).map((b) => b.env)).toEqual([
      'PROJECT', 'REGION', 'ZONE', 'CLUSTER_NAME', 'GCS_BUCKET', 'STATE_BUCKET', 'BUCKET_ACCESS', 'COMPUTE_TYPE', 'TOPOLOGY',
      'TPU_CAPACITY', 'RESERVATION', 'SINGLE_HOST_CAPACITY', 'SINGLE_HOST_RESERVATION',
    ]);
  });

  test("PIPELINES keeps the file's other keys of a listed pipeline (its run id)", () => {
    const file = configFile((c) => (c.pipelines['rl-qwen3'].runId = 'r7'));
    expect(loadConfig({ env: { PIPELINES: 'rl-qwen3' }, file }).config.pipelines['rl-qwen3']).toMatchObject({ enabled: true, runId: 'r7' });
  });

  test("TPU_NAME choosing the VM silences only its own note: another tutorial variable's note stays", () => {
    expect(loadConfig({ env: { TPU_NAME: 'vm', MODEL_NAME: 'm' } }).notices).toContain(
      'MODEL_NAME is set but not read by this program: each pipeline recipe names its model; choose pipelines with PIPELINES (e.g. PIPELINES=rl-qwen3)',
    );
  });

  test("a file without a bucket: GCS_BUCKET fills it (nothing to conflict with)", () => {
    const file = configFile((c) => {
      c.project = 'acme-prod';
      delete c.bucket;
    });
    expect(loadConfig({ env: { GCS_BUCKET: 'acme-dev-ckpt' }, file }).config.bucket).toBe('acme-dev-ckpt');
  });

  test('IDENTITY_FROM=file with two conflicts names both, separated', () => {
    const file = configFile((c) => Object.assign(c, { project: 'acme-prod', clusterName: 'prod-tpu' }));
    expect(loadConfig({ env: { PROJECT: 'acme-dev', CLUSTER_NAME: 'dev-tpu', IDENTITY_FROM: 'file' }, file }).notices).toContain(
      `IDENTITY_FROM=file: ${file} wins over the environment, which is ignored for: PROJECT (env) is 'acme-dev', ${file}: project is 'acme-prod'; CLUSTER_NAME (env) is 'dev-tpu', ${file}: clusterName is 'prod-tpu'`,
    );
  });

  test('a file value that is not a string is shown as JSON in a conflict', () => {
    const file = configFile((c) => Object.assign(c, { project: 'acme-prod', clusterName: ['prod-tpu'] }));
    expect(issuesOf(() => loadConfig({ env: { CLUSTER_NAME: 'dev-tpu' }, file }))[0]).toMatch(/^CLUSTER_NAME \(env\) is 'dev-tpu', \S+: clusterName is \["prod-tpu"\]: /);
  });

  test('SERVE with a trailing comma: the empty item is no pipeline name', () => {
    expect(loadConfig({ env: { SERVE: 'rl-qwen3, ,' } }).config.pipelines['rl-qwen3'].serve).toMatchObject({ enabled: true });
  });

  test('a number where a string belongs is shown as a number', () => {
    const file = configFile((c) => (c.namespace = 5));
    expect(issuesOf(() => loadConfig({ env: {}, file }))).toEqual([`${file}: namespace: Expected string, received number, got 5`]);
  });

  test('a variable sets a key under a block the file holds as null', () => {
    const file = configFile((c) => (c.controlPlane = null));
    expect(loadConfig({ env: { AUTHORIZED_CIDR: '198.18.0.0/15' }, file }).config.controlPlane.authorizedCidrs).toEqual(['198.18.0.0/15']);
  });

  test.each([
    ['0xef 0x80 0xbf (a character, not a mark)', [0xef, 0x80, 0xbf, 0x7b, 0x7d], /: not valid JSON: /],
    ['0x7b 0xfe', [0x7b, 0xfe, 0x7d], /: is not valid UTF-8; /],
    ['0x7b 0xff', [0x7b, 0xff, 0x7d], /: is not valid UTF-8; /],
  ])('%s at the start is no byte-order mark', (_what, bytes, message) => {
    const file = rawFile(Buffer.from(bytes));
    expect(issuesOf(() => loadConfig({ env: {}, file }))).toEqual([expect.stringMatching(message)]);
  });

  test('findRepoRoot needs package.json too: a folder with charts/ alone is not the root', () => {
    const lone = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-root-'));
    fs.mkdirSync(path.join(lone, 'charts'));
    expect(() => findRepoRoot(lone)).toThrow(`cannot find the repository root (package.json + charts/) above ${lone}`);
  });

  test('a file without a single-host block loads, with its notices', () => {
    const file = configFile((c) => delete c.singleHost);
    expect(loadConfig({ env: { ...REAL }, file }).notices).toEqual([]);
  });

  test('REHEARSE naming no pipeline is refused, naming REHEARSE', () => {
    const { loadDeployment } = require('../../config/deployment');
    expect(issuesOf(() => loadDeployment({ env: { REHEARSE: 'nope' } }))[0]).toMatch(/^REHEARSE \(env\): rehearse-nope: no pipeline named 'nope'/);
  });
});
