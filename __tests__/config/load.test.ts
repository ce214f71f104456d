import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ConfigError, ENV_BINDINGS, loadConfig } from '../../config/load';
import { platformFromConfig } from '../../config/platform';
import { configFile, synthStack } from '../util';

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('config defaults (example file, no env)', () => {
  // Loaded inside the test, not at module load: a mutation run (stryker.config.mjs) attributes the load to this test.
  test('reads the checked-in example config', () => {
    const { config, file } = loadConfig({ env: {} });
    expect(file).toBe('config/example.json');
    expect(config).toMatchObject({
      project: 'my-tpu-project',
      region: 'us-east5',
      zone: 'us-east5-b',
      clusterName: 'tpu-post-train',
      tpu: { machineType: 'ct6e-standard-4t', topology: '4x8', slices: 1, capacity: 'reservation' },
      controlPlane: { authorizedCidrs: ['203.0.113.0/24'], allowPublicAccess: false, dnsEndpoint: false },
      deletionProtection: true,
      controllers: { jobsetVersion: '0.12.0', kueueVersion: '0.19.2' },
    });
    expect(config.stateBucket).toBeUndefined();
  });

  test('applies schema defaults for keys the file leaves out', () => {
    const loaded = loadConfig({
      env: {},
      file: configFile((c) => {
        delete c.cpuPool;
        delete c.bucketSettings;
        delete c.controllers;
        delete c.releaseChannel;
      }),
    });
    expect(loaded.config.cpuPool).toEqual({ machineType: 'n4-highmem-64', maxNodes: 4 });
    expect(loaded.config.bucketSettings).toEqual({ forceDestroy: false, access: 'admin', scratchExpiryDays: 7, softDeleteDays: 0 });
    expect(loaded.config.controllers).toEqual({ jobsetVersion: '0.12.0', kueueVersion: '0.19.2', releaseReaders: [] });
    expect(loaded.config.releaseChannel).toBe('REGULAR');
  });
});

describe('environment variables override the file', () => {
  test('the tutorials’ variable names', () => {
    const { config, sources } = loadConfig({
      env: {
        PROJECT: 'other-project',
        REGION: 'europe-west4',
        ZONE: 'europe-west4-a',
        CLUSTER_NAME: 'rl-cluster',
        GCS_BUCKET: 'other-bucket',
        RESERVATION: 'res-2',
        TOPOLOGY: '4x4',
        CLUSTER_NODEPOOL_COUNT: '2',
        AUTHORIZED_CIDR: '198.51.100.0/24, 192.0.2.7/32',
        STATE_BUCKET: 'tf-state-bucket',
        CLOUD_IMAGE_NAME: 'us-docker.pkg.dev/x/y/tpu_post_training:0.2.5',
        RUN_ID: 'r2',
      },
    });
    expect(config).toMatchObject({
      project: 'other-project',
      region: 'europe-west4',
      zone: 'europe-west4-a',
      clusterName: 'rl-cluster',
      bucket: 'other-bucket',
      stateBucket: 'tf-state-bucket',
      tpu: { topology: '4x4', slices: 2, reservation: 'res-2' },
      controlPlane: { authorizedCidrs: ['198.51.100.0/24', '192.0.2.7/32'] },
    });
    expect(config.pipelines['rl-qwen3']).toMatchObject({ image: 'us-docker.pkg.dev/x/y/tpu_post_training:0.2.5', runId: 'r2' });
    expect(sources['tpu.topology']).toBe('TOPOLOGY (env)');
  });

  test('booleans: DNS endpoint, deletion protection, public control plane opt-in', () => {
    const { config } = loadConfig({
      env: { DNS_ENDPOINT: 'true', DELETION_PROTECTION: 'false', ALLOW_PUBLIC_CONTROL_PLANE: '1', AUTHORIZED_CIDR: '0.0.0.0/0' },
    });
    expect(config.controlPlane).toEqual({ authorizedCidrs: ['0.0.0.0/0'], allowPublicAccess: true, dnsEndpoint: true });
    expect(config.deletionProtection).toBe(false);
  });

  test('an empty variable counts as unset', () => {
    expect(loadConfig({ env: { TOPOLOGY: '' } }).config.tpu.topology).toBe('4x8');
  });

  test('HF_TOKEN is never read', () => {
    expect(ENV_BINDINGS.map((b) => b.env)).not.toContain('HF_TOKEN');
    const withToken = loadConfig({ env: { HF_TOKEN: 'hf_canary' } });
    expect(JSON.stringify(withToken)).not.toContain('hf_canary');
  });
});

describe('config errors name the variable or key, the value and what is allowed', () => {
  test('cluster name', () => {
    expect(errorOf(() => loadConfig({ env: { CLUSTER_NAME: 'My_Cluster' } }))).toContain(
      "CLUSTER_NAME (env): cluster name must start with a lowercase letter, contain only lowercase letters, digits and dashes, and be at most 20 characters (service account ids '<name>-gke-wl-sa' are limited to 30), got 'My_Cluster'",
    );
    expect(errorOf(() => loadConfig({ env: { CLUSTER_NAME: 'a-very-long-cluster-name' } }))).toContain(
      "got 'a-very-long-cluster-name'",
    );
  });

  test('bucket name rules', () => {
    expect(errorOf(() => loadConfig({ env: { GCS_BUCKET: 'ab' } }))).toContain(
      "GCS_BUCKET (env): bucket name must be 3-63 characters long, got 'ab'",
    );
    expect(errorOf(() => loadConfig({ env: { GCS_BUCKET: 'google-models' } }))).toContain(
      "bucket name must not start with 'goog' or contain 'google', got 'google-models'",
    );
    expect(errorOf(() => loadConfig({ env: { GCS_BUCKET: 'Upper' } }))).toContain("got 'Upper'");
  });

  test('zone not in region (REGION set; ZONE alone gives its own region)', () => {
    expect(errorOf(() => loadConfig({ env: { REGION: 'us-east5', ZONE: 'us-central1-b' } }))).toContain(
      "ZONE (env): zone must be one of us-east5-a, us-east5-b, us-east5-c (the zones of region us-east5), got 'us-central1-b'",
    );
    const loaded = loadConfig({ env: { ZONE: 'us-central1-b' } });
    expect([loaded.config.region, loaded.sources.region]).toEqual(['us-central1', 'ZONE (env)']);
  });

  test('topology not valid for the machine type', () => {
    expect(errorOf(() => loadConfig({ env: { TOPOLOGY: '4x9' } }))).toContain(
      "TOPOLOGY (env): topology must be one of 2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16 for ct6e-standard-4t, got '4x9'",
    );
    expect(errorOf(() => loadConfig({ env: { COMPUTE_TYPE: 'ct6e-standard-8t', TOPOLOGY: '4x8' } }))).toContain(
      "topology must be one of 2x4 for ct6e-standard-8t, got '4x8'",
    );
  });

  test('unknown machine type', () => {
    expect(errorOf(() => loadConfig({ env: { COMPUTE_TYPE: 'v6e-32' } }))).toContain(
      "COMPUTE_TYPE (env): must be one of ct5lp-hightpu-1t, ct5lp-hightpu-4t, ct5lp-hightpu-8t, ct5p-hightpu-4t, ct6e-standard-1t, ct6e-standard-4t, ct6e-standard-8t, tpu7x-standard-4t, got 'v6e-32'",
    );
  });

  test('fewer than one slice', () => {
    expect(errorOf(() => loadConfig({ env: { CLUSTER_NODEPOOL_COUNT: '0' } }))).toContain(
      'CLUSTER_NODEPOOL_COUNT (env): number of slices must be at least 1, got 0',
    );
    expect(errorOf(() => loadConfig({ env: { CLUSTER_NODEPOOL_COUNT: 'two' } }))).toContain(
      "CLUSTER_NODEPOOL_COUNT (env): must be a whole number, got 'two'",
    );
  });

  test('reservation capacity without a reservation name', () => {
    const file = configFile((c) => delete c.tpu.reservation);
    expect(errorOf(() => loadConfig({ env: {}, file }))).toContain(
      `${file}: tpu.reservation: capacity 'reservation' needs a reservation name; set it, or choose capacity 'spot' or 'flex-start'`,
    );
    // spot needs no reservation
    expect(loadConfig({ env: { TPU_CAPACITY: 'spot' }, file }).config.tpu.capacity).toBe('spot');
  });

  test('0.0.0.0/0 without the explicit opt-in', () => {
    expect(errorOf(() => loadConfig({ env: { AUTHORIZED_CIDR: '10.0.0.0/8,0.0.0.0/0' } }))).toContain(
      "AUTHORIZED_CIDR (env): '0.0.0.0/0' opens the control plane to the whole internet; list your own ranges, use the DNS endpoint (DNS_ENDPOINT=true), or opt in explicitly with ALLOW_PUBLIC_CONTROL_PLANE=true",
    );
  });

  test('a malformed CIDR', () => {
    expect(errorOf(() => loadConfig({ env: { AUTHORIZED_CIDR: '300.1.2.3/24' } }))).toContain(
      "AUTHORIZED_CIDR (env): authorized CIDR has an octet above 255 or a prefix above 32, got '300.1.2.3/24'",
    );
  });

  test('no way to reach the control plane', () => {
    const file = configFile((c) => (c.controlPlane.authorizedCidrs = []));
    expect(errorOf(() => loadConfig({ env: {}, file }))).toContain(
      'no authorized CIDR and no DNS endpoint: nothing could reach the control plane; set AUTHORIZED_CIDR or DNS_ENDPOINT=true',
    );
    expect(loadConfig({ env: { DNS_ENDPOINT: 'true' }, file }).config.controlPlane.dnsEndpoint).toBe(true);
  });

  test('a boolean variable that is not a boolean', () => {
    expect(errorOf(() => loadConfig({ env: { DNS_ENDPOINT: 'maybe' } }))).toContain(
      "DNS_ENDPOINT (env): must be true or false, got 'maybe'",
    );
  });

  test('an unknown key in the file', () => {
    const file = configFile((c) => (c.tpu.topolgy = '4x8'));
    expect(errorOf(() => loadConfig({ env: {}, file }))).toContain(`${file}: tpu: Unrecognized key(s) in object: 'topolgy'`);
  });

  test('a missing or unreadable config file', () => {
    expect(errorOf(() => loadConfig({ env: { CONFIG_FILE: '/nonexistent/config.json' } }))).toContain(
      '/nonexistent/config.json (CONFIG_FILE): cannot read config: file not found',
    );
  });

  test('an unknown CPU machine type', () => {
    const file = configFile((c) => (c.cpuPool.machineType = 'n9-huge-1'));
    expect(errorOf(() => loadConfig({ env: {}, file }))).toContain(`${file}: cpuPool.machineType: machine type must be one of`);
  });

  test('a single-host pool that duplicates the main slices', () => {
    expect(
      errorOf(() => loadConfig({ env: { COMPUTE_TYPE: 'ct6e-standard-8t', TOPOLOGY: '2x4', SINGLE_HOST_RESERVATION: 'res-v6e-8' } })),
    ).toContain('SINGLE_HOST_RESERVATION (env): the single-host pool (ct6e-standard-8t 2x4) duplicates the main TPU slices');
  });

  test('a bad run id', () => {
    expect(errorOf(() => loadConfig({ env: { RUN_ID: 'Run_1' } }))).toContain(
      "RUN_ID (env): run id must be lowercase letters, digits or dashes, starting and ending with a letter or digit, got 'Run_1'",
    );
  });

  test('state bucket name rules', () => {
    expect(errorOf(() => loadConfig({ env: { STATE_BUCKET: 'tf..state' } }))).toContain(
      "STATE_BUCKET (env): state bucket name must not contain .., .- or -., got 'tf..state'",
    );
  });

  test('project id and region formats', () => {
    expect(errorOf(() => loadConfig({ env: { PROJECT: 'My Project' } }))).toContain(
      'PROJECT (env): must be a Google Cloud project id (6-30 lowercase letters, digits, dashes)',
    );
    expect(errorOf(() => loadConfig({ env: { REGION: 'us east5' } }))).toContain('REGION (env): must be a Compute Engine region such as us-east5');
  });

  test('a config file that is not a JSON object', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-config-'));
    const file = path.join(dir, 'list.json');
    fs.writeFileSync(file, '[1, 2]');
    expect(errorOf(() => loadConfig({ env: {}, file }))).toContain(`${file}: the config file must hold a JSON object`);
    fs.writeFileSync(file, '{ not json');
    expect(errorOf(() => loadConfig({ env: {}, file }))).toContain(`${file}: not valid JSON: CloseBraceExpected at line 1, column 11`);
  });

  test('all problems are reported at once', () => {
    const message = errorOf(() => loadConfig({ env: { TOPOLOGY: '4x9', REGION: 'us-east5', ZONE: 'us-west1-a' } }));
    expect(message.split('\n').filter((l) => l.startsWith('  - '))).toHaveLength(2);
  });
});

describe('platform from config', () => {
  test('one TPU group per slice shape, pool names per slice', () => {
    const platform = platformFromConfig(loadConfig({ env: { CLUSTER_NODEPOOL_COUNT: '2', SINGLE_HOST_RESERVATION: 'res-v6e-8' } }));
    expect(platform.tpuGroups.map((g) => [g.slice.acceleratorType, g.count, g.poolNames])).toEqual([
      ['v6e-32', 2, ['tpu-v6e-32-0', 'tpu-v6e-32-1']],
      ['v6e-8', 1, ['tpu-v6e-8-8t-0']],
    ]);
    expect(platform.tpuGroups[0].capacity).toEqual({ type: 'reservation', reservation: 'my-v6e-32-reservation' });
    expect(platform.workloadGsaEmail).toBe('tpu-post-train-gke-wl-sa@my-tpu-project.iam.gserviceaccount.com');
  });

  test('flex-start carries its maximum run duration', () => {
    // TPU_CAPACITY replaces the file's capacity and reservation as a unit (env over file).
    const platform = platformFromConfig(loadConfig({ env: { TPU_CAPACITY: 'flex-start' } }));
    expect(platform.tpuGroups[0].capacity).toEqual({ type: 'flex-start', maxRunDurationSeconds: 72 * 3600 });
  });
});

describe('pipeline selection', () => {
  const { selectPipelines, pipelineOptions } = require('../../config/pipelines');
  const { RECIPES } = require('../../jobs/recipes');
  const names = ['rl-qwen3', 'rl-gemma4', 'sft-gemma4', 'rl-llama3'];
  const select = (env: Record<string, string>, file?: string) => {
    const loaded = loadConfig({ env, file });
    return selectPipelines(loaded, RECIPES, platformFromConfig(loaded));
  };

  test('default: every recipe whose slice infra has, with the file’s run id; the others left out with one notice each', () => {
    const loaded = loadConfig({ env: {} });
    expect(select({})).toEqual({
      names: ['rl-qwen3', 'rl-gemma4', 'sft-gemma4'],
      notices: [
        'rl-llama3 left out: rl-llama3 trains on ct6e-standard-8t 2x4 (v6e-8-8t), infra has ct6e-standard-4t 4x8; ' +
          'SINGLE_HOST_RESERVATION=<v6e-8 reservation> (or SINGLE_HOST_CAPACITY=spot|flex-start) adds it next to the main slices',
      ],
    });
    expect(select({ SINGLE_HOST_RESERVATION: 'res-v6e-8' })).toEqual({ names, notices: [] });
    expect(pipelineOptions(loaded, 'rl-qwen3')).toMatchObject({ runId: 'r1', configSource: 'config/example.json: pipelines.rl-qwen3' });
  });

  test('PIPELINES picks the pipelines to synthesize; PIPELINES=none leaves only infra', () => {
    expect(select({ PIPELINES: 'sft-gemma4, rl-qwen3' }).names).toEqual(['rl-qwen3', 'sft-gemma4']);
    expect(select({ PIPELINES: 'none' })).toEqual({ names: [], notices: [] });
  });

  test('PIPELINES works with a config file that lists no pipelines: exactly the listed ones', () => {
    const file = configFile((c) => delete c.pipelines);
    expect(select({ PIPELINES: 'rl-gemma4' }, file).names).toEqual(['rl-gemma4']);
    expect(select({}, file).names).toEqual(['rl-qwen3', 'rl-gemma4', 'sft-gemma4']);
  });

  test('serve.enabled on a disabled pipeline: noted once, naming both keys, and no serve stack', () => {
    expect(select({ PIPELINES: 'rl-qwen3', SERVE: 'rl-gemma4' }).notices).toEqual([
      'SERVE (env): serve.enabled is set, but rl-gemma4 is disabled (PIPELINES (env)), so no serve-rl-gemma4 stack is built',
    ]);
    const file = configFile((c) => (c.pipelines['sft-gemma4'] = { ...c.pipelines['sft-gemma4'], enabled: false, serve: { enabled: true } }));
    expect(select({}, file).notices.filter((n: string) => n.includes('serve.enabled'))).toEqual([
      `${file}: pipelines.sft-gemma4.serve.enabled: serve.enabled is set, but sft-gemma4 is disabled (${file}: pipelines.sft-gemma4.enabled), so no serve-sft-gemma4 stack is built`,
    ]);
  });

  test('a pipeline named in PIPELINES whose slice infra lacks is an error naming the variable that adds it', () => {
    expect(errorOf(() => select({ PIPELINES: 'rl-llama3' }))).toContain(
      'PIPELINES (env): rl-llama3 trains on ct6e-standard-8t 2x4 (v6e-8-8t), infra has ct6e-standard-4t 4x8; SINGLE_HOST_RESERVATION=',
    );
    expect(errorOf(() => select({ PIPELINES: 'rl-qwen3', COMPUTE_TYPE: 'ct6e-standard-8t', TOPOLOGY: '2x4' }))).toContain(
      'rl-qwen3 trains on ct6e-standard-4t 4x8 (v6e-32), infra has ct6e-standard-8t 2x4; COMPUTE_TYPE=ct6e-standard-4t TOPOLOGY=4x8 (TPU_TYPE=v6e-32) with its RESERVATION',
    );
  });

  test('enabled: true in the file insists too (an error); enabled: false leaves a pipeline out silently', () => {
    const insists = configFile((c) => (c.pipelines['rl-llama3'] = { enabled: true }));
    expect(errorOf(() => select({}, insists))).toContain(`${insists}: pipelines.rl-llama3.enabled: rl-llama3 trains on ct6e-standard-8t 2x4`);
    const off = configFile((c) => (c.pipelines['rl-llama3'] = { enabled: false }));
    expect(select({}, off).notices).toEqual([]);
  });

  test('a pipeline key that names no preset and defines no pipeline is an error (with did-you-mean), not silently ignored', () => {
    expect(errorOf(() => select({ PIPELINES: 'rl-qwen' }))).toContain(
      "PIPELINES (env): no preset named 'rl-qwen' (did you mean 'rl-qwen3'?); presets: rl-qwen3, rl-gemma4, sft-gemma4, rl-llama3; " +
        'a new pipeline sets method, model, hfModel and dataset',
    );
  });
});

describe('bucketSettings.softDeleteDays', () => {
  test('default 0 (off) reaches the checkpoint bucket', () => {
    const tf = synthStack('infra');
    expect(Object.values<any>(tf.resource.google_storage_bucket)[0].soft_delete_policy).toEqual({ retention_duration_seconds: 0 });
  });
  test('a file value reaches the checkpoint bucket', () => {
    const loaded = loadConfig({ env: {}, file: configFile((c) => (c.bucketSettings.softDeleteDays = 30)) });
    expect(loaded.config.bucketSettings.softDeleteDays).toBe(30);
  });
  test('a value GCS refuses names the key and the range', () => {
    const message = errorOf(() => loadConfig({ env: {}, file: configFile((c) => (c.bucketSettings.softDeleteDays = 5)) }));
    expect(message).toContain('bucketSettings.softDeleteDays');
    expect(message).toContain('bucketSettings.softDeleteDays: must be 0 (soft delete off) or a whole number of days from 7 to 90, got 5');
  });
});

describe('controllers.releaseReaders (the plan identity\'s read of the release Secrets)', () => {
  test('default: none; set: the accounts reach the Controllers construct', () => {
    expect(loadConfig({ env: {} }).config.controllers.releaseReaders).toEqual([]);
    const file = configFile((c) => {
      c.controllers = { releaseReaders: ['plan@my-tpu-project.iam.gserviceaccount.com'] };
    });
    expect(loadConfig({ env: {}, file }).config.controllers.releaseReaders).toEqual(['plan@my-tpu-project.iam.gserviceaccount.com']);
  });

  test('an address that is no email: exit naming the key and the value', () => {
    const file = configFile((c) => {
      c.controllers = { releaseReaders: ['not an email'] };
    });
    expect(errorOf(() => loadConfig({ env: {}, file }))).toContain("controllers.releaseReaders.0: must be a Google account email such as plan@my-project.iam.gserviceaccount.com, got 'not an email'");
  });
});

test.each(['argo', 'kueue-system', 'jobset-system'])('namespace %s (a controllers\' own) is refused, naming the key and the reason', (ns) => {
  const file = configFile((c) => {
    c.namespace = ns;
  });
  expect(errorOf(() => loadConfig({ env: {}, file }))).toContain(
    "namespace: is the controllers' own (jobset-system, kueue-system, argo; argo enforces Pod Security restricted, which the TPU steps' host network breaks): use a namespace of your own, such as default",
  );
});
