/**
 * Each tutorial's user, setting only that tutorial's environment variables (over the checked-in example file):
 * exactly the capacity they have, nothing they don't, and one line for anything left out or not read.
 */
import { Testing, TerraformStack } from 'cdktf';
import { loadDeployment } from '../../config/deployment';
import { ConfigError, loadConfig } from '../../config/load';
import { composeApp } from '../../stacks/app';

/** Synthesizes the whole app from env only: stack names, TPU pools of infra (by pool name), notices. */
function journey(env: Record<string, string>) {
  const { app, notices } = composeApp(loadDeployment({ env }), { outdir: Testing.app().outdir });
  const stacks = app.node.children.map((c) => c.node.id);
  const infra = JSON.parse(Testing.synth(app.node.findChild('infra') as TerraformStack));
  const all = Object.values(infra.resource.google_container_node_pool ?? {}) as any[];
  const tpuPools = Object.fromEntries(all.filter((p) => p.node_config.machine_type.startsWith('ct') || p.node_config.machine_type.startsWith('tpu')).map((p) => [p.name, p]));
  return { stacks, tpuPools, notices, infra };
}

function configError(env: Record<string, string>): string {
  try {
    loadConfig({ env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

/** What tutorials 000, 001 and 003 export (001/003 add TPU_TYPE). */
const TUTORIAL_V6E_32 = {
  PROJECT: 'acme-tpu-prod',
  REGION: 'us-east5',
  ZONE: 'us-east5-a',
  CLUSTER_NAME: 'post-train',
  GCS_BUCKET: 'acme-post-train-ckpt',
  RESERVATION: 'acme-v6e-32',
  COMPUTE_TYPE: 'ct6e-standard-4t',
  TOPOLOGY: '4x8',
  CLUSTER_NODEPOOL_COUNT: '1',
  CLOUD_IMAGE_NAME: 'us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.4',
};

// Built at run time so no token-shaped literal is committed.
const TOKEN = ['hf', 'canary', String(Date.now())].join('_');

describe('tutorials 000/001/003: exactly their v6e-32 slice on their reservation', () => {
  const run = journey({
    ...TUTORIAL_V6E_32,
    TPU_TYPE: 'v6e-32',
    MODEL_NAME: 'qwen3-30b-a3b',
    HF_TOKEN: TOKEN,
    CLUSTER_TOOLKIT_VERSION: 'v1.103.0',
  });

  test('one TPU pool: 8 nodes of ct6e-standard-4t 4x8 on RESERVATION, no single-host pool', () => {
    expect(Object.keys(run.tpuPools)).toEqual(['tpu-v6e-32-0']);
    expect(run.tpuPools['tpu-v6e-32-0']).toMatchObject({
      node_count: 8,
      placement_policy: { type: 'COMPACT', tpu_topology: '4x8' },
      node_config: {
        machine_type: 'ct6e-standard-4t',
        reservation_affinity: { consume_reservation_type: 'SPECIFIC_RESERVATION', values: ['acme-v6e-32'] },
      },
    });
  });

  test('the three v6e-32 pipelines; rl-llama3 left out with one line saying which variable adds it', () => {
    expect(run.stacks).toEqual(['infra', 'rl-qwen3', 'rl-gemma4', 'sft-gemma4']);
    expect(run.notices.filter((n) => n.startsWith('rl-llama3 left out'))).toEqual([
      expect.stringContaining('SINGLE_HOST_RESERVATION=<v6e-8 reservation>'),
    ]);
  });

  test('tutorial variables the program never reads get one notice each; the token value is never printed', () => {
    for (const name of ['MODEL_NAME', 'HF_TOKEN', 'CLUSTER_TOOLKIT_VERSION']) {
      expect(run.notices.filter((n) => n.startsWith(`${name} is set but not read`))).toHaveLength(1);
    }
    expect(run.notices.join('\n')).not.toContain(TOKEN);
    expect(JSON.stringify(run.infra)).not.toContain(TOKEN);
  });

  test('a tutorial without COMPUTE_TYPE/TOPOLOGY: TPU_TYPE alone gives the same slice', () => {
    const { COMPUTE_TYPE: _c, TOPOLOGY: _t, ...rest } = TUTORIAL_V6E_32;
    const loaded = loadConfig({ env: { ...rest, TPU_TYPE: 'v6e-32' } });
    expect(loaded.config.tpu).toMatchObject({ machineType: 'ct6e-standard-4t', topology: '4x8' });
    expect(loaded.sources['tpu.topology']).toBe('TPU_TYPE (env)');
  });
});

/** Each v6e-32 tutorial's exact exports (seeds/000, 001, 003, the "export" block), with real values. */
const BASE = { PROJECT: 'acme-tpu-prod', REGION: 'us-east5', ZONE: 'us-east5-a', CLUSTER_NAME: 'post-train', GCS_BUCKET: 'acme-post-train-ckpt', CLOUD_IMAGE_NAME: TUTORIAL_V6E_32.CLOUD_IMAGE_NAME, RESERVATION: 'acme-v6e-32', HF_TOKEN: 'x', CLUSTER_TOOLKIT_VERSION: 'v1.103.0' };
const EXACT: Array<[string, Record<string, string>]> = [
  ['000', { ...BASE, COMPUTE_TYPE: 'ct6e-standard-4t', TOPOLOGY: '4x8', CLUSTER_NODEPOOL_COUNT: '1', MODEL_NAME: 'qwen3-30b-a3b' }],
  ['001', { ...BASE, COMPUTE_TYPE: 'ct6e-standard-4t', TPU_TYPE: 'v6e-32', TOPOLOGY: '4x8', CLUSTER_NODEPOOL_COUNT: '1', MODEL_NAME: 'gemma4-26b' }],
  ['003', { ...BASE, TPU_TYPE: 'v6e-32', MODEL_NAME: 'gemma4-31b' }],
];
test.each(EXACT)('tutorial %s, its exact exports: the v6e-32 pool on RESERVATION and the three v6e-32 stacks', (_n, env) => {
  const loaded = loadConfig({ env });
  expect(loaded.config).toMatchObject({ region: 'us-east5', zone: 'us-east5-a', tpu: { machineType: 'ct6e-standard-4t', topology: '4x8', slices: 1, reservation: 'acme-v6e-32' } });
  const run = journey(env);
  expect(Object.keys(run.tpuPools)).toEqual(['tpu-v6e-32-0']);
  expect(run.stacks).toEqual(['infra', 'rl-qwen3', 'rl-gemma4', 'sft-gemma4']);
});

describe('tutorial 002: its four variables alone give one v6e-8 VM on its reservation and the rl-llama3 stack', () => {
  // Exactly what tutorial 002 exports (seeds/002, "设置环境"): no REGION, no CLUSTER_NAME, no shape variable. The zone
  // is outside the example's region on purpose: REGION comes from ZONE.
  const TUTORIAL_002 = { PROJECT: 'acme-tpu-prod', ZONE: 'us-central2-b', RESERVATION: 'acme-v6e-8', TPU_NAME: 'my-tpu-vm' };
  const run = journey(TUTORIAL_002);

  test('one single-host pool with 1 node of ct6e-standard-8t, no placement policy, on RESERVATION, in ZONE', () => {
    expect(Object.keys(run.tpuPools)).toEqual(['tpu-v6e-8-8t-0']);
    expect(run.tpuPools['tpu-v6e-8-8t-0']).toMatchObject({
      node_count: 1,
      node_locations: ['us-central2-b'],
      node_config: { machine_type: 'ct6e-standard-8t', reservation_affinity: { values: ['acme-v6e-8'] } },
    });
    expect(run.tpuPools['tpu-v6e-8-8t-0'].placement_policy).toBeUndefined();
  });

  test('REGION is taken from ZONE; the shape is attributed to TPU_NAME with one notice saying how to choose another', () => {
    const loaded = loadConfig({ env: TUTORIAL_002 });
    expect(loaded.config).toMatchObject({ region: 'us-central2', zone: 'us-central2-b', tpu: { machineType: 'ct6e-standard-8t', topology: '2x4', slices: 1 } });
    expect(loaded.sources).toMatchObject({ region: 'ZONE (env)', 'tpu.machineType': 'TPU_NAME (env)', 'tpu.topology': 'TPU_NAME (env)' });
    expect(loaded.notices.filter((n) => n.startsWith('TPU_NAME'))).toEqual([
      "TPU_NAME is set (tutorial 002's TPU VM) without TPU_TYPE, COMPUTE_TYPE or TOPOLOGY: the TPU pool is that VM, one ct6e-standard-8t 2x4 (v6e-8) " +
        'on the main capacity (RESERVATION); GKE names the node, so the value itself is not used. Set TPU_TYPE (e.g. TPU_TYPE=v6e-32) for another shape',
    ]);
  });

  test('with a REGION too (and the example\'s zone), still the one v6e-8 VM, never the example\'s v6e-32 on a v6e-8 reservation', () => {
    const loaded = loadConfig({ env: { ...TUTORIAL_002, REGION: 'us-east5', ZONE: 'us-east5-b' } });
    expect(loaded.config.tpu).toMatchObject({ machineType: 'ct6e-standard-8t', topology: '2x4', slices: 1, reservation: 'acme-v6e-8' });
  });

  test('the rl-llama3 stack only; the three v6e-32 pipelines left out in one line, naming the reservation they need', () => {
    expect(run.stacks).toEqual(['infra', 'rl-llama3']);
    expect(run.notices.filter((n) => / left out: /.test(n))).toEqual([
      'rl-qwen3, rl-gemma4 and sft-gemma4 left out: they train on ct6e-standard-4t 4x8 (v6e-32), infra has ct6e-standard-8t 2x4; ' +
        'COMPUTE_TYPE=ct6e-standard-4t TOPOLOGY=4x8 (TPU_TYPE=v6e-32) with its RESERVATION makes it the main slice shape',
    ]);
  });

  test('a shape variable wins over TPU_NAME, which is then only noted as unread; REGION set explicitly wins over ZONE', () => {
    const loaded = loadConfig({ env: { ...TUTORIAL_002, TPU_TYPE: 'v6e-32', ZONE: 'us-east5-b' } });
    expect(loaded.config.tpu).toMatchObject({ machineType: 'ct6e-standard-4t', topology: '4x8' });
    expect(loaded.notices).toContainEqual(expect.stringMatching(/^TPU_NAME is set but not read/));
    expect(configError({ ...TUTORIAL_002, REGION: 'us-east5' })).toContain(
      "ZONE (env): zone must be one of us-east5-a, us-east5-b, us-east5-c (the zones of region us-east5), got 'us-central2-b'",
    );
  });
});

describe('both: the v6e-32 slices and the single-host pool, each on its own capacity', () => {
  test('RESERVATION + SINGLE_HOST_RESERVATION: two pools, every pipeline', () => {
    const run = journey({ ...TUTORIAL_V6E_32, SINGLE_HOST_RESERVATION: 'acme-v6e-8' });
    expect(Object.keys(run.tpuPools)).toEqual(['tpu-v6e-32-0', 'tpu-v6e-8-8t-0']);
    expect(run.tpuPools['tpu-v6e-8-8t-0'].node_config.reservation_affinity.values).toEqual(['acme-v6e-8']);
    expect(run.stacks).toEqual(['infra', 'rl-qwen3', 'rl-gemma4', 'sft-gemma4', 'rl-llama3']);
    expect(run.notices.filter((n) => / left out: /.test(n))).toEqual([]);
  });

  test('spot for the slices and flex-start for the single-host pool (no reservation anywhere)', () => {
    const { RESERVATION: _r, ...rest } = TUTORIAL_V6E_32;
    const run = journey({ ...rest, TPU_CAPACITY: 'spot', SINGLE_HOST_CAPACITY: 'flex-start' });
    expect(run.tpuPools['tpu-v6e-32-0'].node_config).toMatchObject({ spot: true, reservation_affinity: { consume_reservation_type: 'NO_RESERVATION' } });
    expect(run.tpuPools['tpu-v6e-8-8t-0'].node_config).toMatchObject({
      flex_start: true,
      reservation_affinity: { consume_reservation_type: 'NO_RESERVATION' },
    });
  });

  test('a shared reservation projects/P/reservations/R is accepted as GKE spells it', () => {
    const run = journey({ ...TUTORIAL_V6E_32, RESERVATION: 'projects/acme-shared/reservations/v6e-32-pool' });
    expect(run.tpuPools['tpu-v6e-32-0'].node_config.reservation_affinity.values).toEqual(['projects/acme-shared/reservations/v6e-32-pool']);
  });
});

describe('capacity errors', () => {
  test('a reservation together with spot or flex-start is an error, for either pool', () => {
    expect(configError({ ...TUTORIAL_V6E_32, TPU_CAPACITY: 'spot' })).toContain(
      "TPU_CAPACITY (env): capacity 'spot' consumes no reservation, but reservation 'acme-v6e-32' is set; drop the reservation to use spot",
    );
    expect(configError({ SINGLE_HOST_RESERVATION: 'acme-v6e-8', SINGLE_HOST_CAPACITY: 'flex-start' })).toContain(
      "SINGLE_HOST_CAPACITY (env): capacity 'flex-start' consumes no reservation, but reservation 'acme-v6e-8' is set",
    );
  });

  test('a reservation reference that is neither a name nor projects/P/reservations/R', () => {
    expect(configError({ RESERVATION: 'projects/acme/reservation/x' })).toContain(
      "RESERVATION (env): reservation must be a Compute Engine reservation name (lowercase letters, digits, dashes) or a shared reservation 'projects/<project>/reservations/<name>', got 'projects/acme/reservation/x'",
    );
  });

  test('TPU_TYPE that conflicts with COMPUTE_TYPE or TOPOLOGY is an error; an unknown one lists the forms', () => {
    expect(configError({ TPU_TYPE: 'v6e-32', TOPOLOGY: '4x4' })).toContain(
      "TPU_TYPE (env): 'v6e-32' is ct6e-standard-4t 4x8, but TOPOLOGY (env) is '4x4'; make them agree or unset one",
    );
    expect(configError({ TPU_TYPE: 'v6e-8', COMPUTE_TYPE: 'ct6e-standard-1t' })).toContain(
      "TPU_TYPE (env): 'v6e-8' is ct6e-standard-8t 2x4 or ct6e-standard-4t 2x4, but COMPUTE_TYPE (env) is 'ct6e-standard-1t'",
    );
    expect(configError({ TPU_TYPE: 'v6e32' })).toContain("TPU_TYPE (env): must be a Cloud TPU accelerator type of the TPU table such as v5litepod-8, v5p-8, v6e-8 or tpu7x-8, got 'v6e32'");
  });

  test('TPU_TYPE=v6e-8 with COMPUTE_TYPE=ct6e-standard-4t picks the 2-VM 2x4 shape', () => {
    expect(loadConfig({ env: { TPU_TYPE: 'v6e-8', COMPUTE_TYPE: 'ct6e-standard-4t' } }).config.tpu.topology).toBe('2x4');
  });
});

describe('other generations', () => {
  test('COMPUTE_TYPE=ct5p-hightpu-4t TOPOLOGY=2x2x2 PIPELINES=none: a 2-node v5p slice', () => {
    const run = journey({ COMPUTE_TYPE: 'ct5p-hightpu-4t', TOPOLOGY: '2x2x2', PIPELINES: 'none' });
    expect(run.stacks).toEqual(['infra']);
    expect(Object.keys(run.tpuPools)).toEqual(['tpu-v5p-2x2x2-0']);
    expect(run.tpuPools['tpu-v5p-2x2x2-0']).toMatchObject({
      node_count: 2,
      placement_policy: { type: 'COMPACT', tpu_topology: '2x2x2' },
      node_config: { machine_type: 'ct5p-hightpu-4t' },
    });
  });

  test('v5e on a multi-host slice', () => {
    const run = journey({ COMPUTE_TYPE: 'ct5lp-hightpu-4t', TOPOLOGY: '4x4', PIPELINES: 'none' });
    expect(run.tpuPools['tpu-v5litepod-16-0']).toMatchObject({ node_count: 4, node_config: { machine_type: 'ct5lp-hightpu-4t' } });
  });
});

test('SINGLE_HOST_RESERVATION turns the pool on even where the file says singleHost.enabled: false', () => {
  const fs = require('fs');
  const path = require('path');
  const os = require('os');
  const example = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'config', 'example.json'), 'utf8'));
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-sh-')), 'c.json');
  fs.writeFileSync(file, JSON.stringify({ ...example, singleHost: { enabled: false } }));
  expect(loadConfig({ env: {}, file }).config.singleHost?.enabled).toBe(false);
  const loaded = loadConfig({ env: { SINGLE_HOST_RESERVATION: 'acme-v6e-8' }, file });
  expect(loaded.config.singleHost).toMatchObject({ enabled: true, reservation: 'acme-v6e-8' });
  expect(loaded.sources['singleHost.enabled']).toBe('SINGLE_HOST_RESERVATION (env)');
});
