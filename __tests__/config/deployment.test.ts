/**
 * loadDeployment (config/deployment.ts): config/'s one entry returns one frozen, fully resolved Deployment, every
 * value able to say where it came from, and throws every config error before a stack exists.
 */
import { loadDeployment } from '../../config/deployment';
import { ConfigError } from '../../config/load';
import { DEFAULT_STALL_ALERT_MINUTES } from '../../jobs/notifications';
import { WITH_SINGLE_HOST } from '../util';

describe('defaults: the example config alone', () => {
  // Built before each test, not at module load: a mutation run (stryker.config.mjs) attributes the load to the test.
  let d: ReturnType<typeof loadDeployment>;
  beforeEach(() => {
    d = loadDeployment({ env: {} });
  });

  test('every part is resolved (no undefined setting reaches a stack)', () => {
    expect(d.cluster).toMatchObject({ allowPublicAccess: false, dnsEndpoint: false, releaseChannel: 'REGULAR', deletionProtection: true, upgradeExclusionDays: 30 });
    expect(d.nodePools).toEqual({ system: { machineType: 'e2-standard-8', nodes: 1 }, cpuMaxNodes: 4 });
    expect(d.bucket).toEqual({ forceDestroy: false, scratchExpiryDays: 7, softDeleteDays: 0, access: 'admin' });
    expect(d.controllers).toMatchObject({ jobsetVersion: '0.12.0', kueueVersion: '0.19.2' });
    expect(d.controllers.queuesChartPath).toMatch(/charts[/\\]kueue-queues$/);
    expect(d.state.stateBucket).toBeUndefined();
    expect(d.notify.emails).toEqual([]);
    expect(d.notify.plan.stall.minutes).toBe(DEFAULT_STALL_ALERT_MINUTES);
  });

  test('the commands are derived once: credentials (IP endpoint) and the token command', () => {
    const p = d.platform;
    expect(d.cluster.credentialsCommand).toBe(`gcloud container clusters get-credentials ${p.clusterName} --location=${p.region} --project=${p.project}`);
    expect(p.hfTokenSecretCommand).toContain(`gcloud secrets versions add ${p.hfTokenSecretId} --project=${p.project}`);
  });

  test('the pipelines that fit are built, the one that does not is left out with a notice', () => {
    expect(d.pipelines.map((p) => p.name)).toEqual(['rl-qwen3', 'rl-gemma4', 'sft-gemma4']);
    expect(d.notices.some((n) => n.startsWith('rl-llama3 left out:'))).toBe(true);
    expect(new Set(d.notices).size).toBe(d.notices.length);
  });

  test("each pipeline's images and the Kueue quota come with it", () => {
    for (const p of d.pipelines) expect(p.images).toContain(p.image);
    expect(Object.values(d.queues.tpuChipsByFlavor)).toEqual([32]);
    expect(d.queues.objects.map((o) => o.kind)).toEqual(['ResourceFlavor', 'ResourceFlavor', 'ClusterQueue', 'LocalQueue']);
  });

  test('provenance: every resolved value names its source (the file key by default)', () => {
    expect(d.provenance['tpu.topology']).toBe('config/example.json: tpu.topology');
    expect(d.provenance['bucketSettings.softDeleteDays']).toBe('config/example.json: bucketSettings.softDeleteDays');
    expect(d.provenance['controlPlane.authorizedCidrs']).toBe('config/example.json: controlPlane.authorizedCidrs');
  });

  test('placeholders carry their description and the variable that replaces them', () => {
    expect(d.preflight.placeholders.map((p) => p.env)).toContain('PROJECT');
    for (const p of d.preflight.placeholders) expect(p.description).toBe(`${p.path} '${p.value}' (set ${p.env})`);
  });

  test('it is frozen: nothing below the entry point can change it', () => {
    expect(Object.isFrozen(d)).toBe(true);
    expect(Object.isFrozen(d.cluster.authorizedCidrs)).toBe(true);
    expect(Object.isFrozen(d.pipelines[0]!.steps[0]!.manifest)).toBe(true);
    expect(() => {
      (d.cluster as { dnsEndpoint: boolean }).dnsEndpoint = true;
    }).toThrow(TypeError);
  });
});

describe('overrides', () => {
  test('env values name their variable; DNS_ENDPOINT reaches the credentials command', () => {
    const d = loadDeployment({ env: { TOPOLOGY: '4x4', DNS_ENDPOINT: 'true', NOTIFY_EMAIL: 'ml@example.com' } });
    expect(d.provenance['tpu.topology']).toBe('TOPOLOGY (env)');
    expect(d.provenance['controlPlane.dnsEndpoint']).toBe('DNS_ENDPOINT (env)');
    expect(d.cluster.credentialsCommand).toMatch(/ --dns-endpoint$/);
    expect(d.notify.emails).toEqual(['ml@example.com']);
  });

  test('a reservation names where it was set', () => {
    const d = loadDeployment({ env: { RESERVATION: 'acme-v6e-32', ...WITH_SINGLE_HOST } });
    expect(d.preflight.reservations.map((r) => [r.reservation, r.env])).toEqual([
      ['acme-v6e-32', 'RESERVATION (env)'],
      ['my-v6e-8-reservation', 'SINGLE_HOST_RESERVATION (env)'],
    ]);
    expect(d.pipelines.map((p) => p.name)).toContain('rl-llama3');
  });

  test('notify.stallMinutes reaches the notification plan', () => {
    const { configFile } = require('../util');
    const file = configFile((c: any) => (c.notify = { emails: ['ml@example.com'], stallMinutes: 45 }));
    expect(loadDeployment({ env: {}, file }).notify.plan.stall.minutes).toBe(45);
  });
});

describe('errors are thrown by loadDeployment, before any stack exists', () => {
  test('a pipeline asked for by name whose slice infra lacks', () => {
    expect(() => loadDeployment({ env: { PIPELINES: 'rl-llama3' } })).toThrow(ConfigError);
    expect(() => loadDeployment({ env: { PIPELINES: 'rl-llama3' } })).toThrow(/PIPELINES \(env\): rl-llama3 trains on ct6e-standard-8t 2x4/);
  });

  test('a schema error names the variable and the value', () => {
    expect(() => loadDeployment({ env: { CLUSTER_NODEPOOL_COUNT: 'two' } })).toThrow("CLUSTER_NODEPOOL_COUNT (env): must be a whole number, got 'two'");
  });
});
