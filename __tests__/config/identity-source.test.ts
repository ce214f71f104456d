/**
 * docs/configuration.md "Where a value comes from": a config file other than the example owns the deployment's
 * identity (project, cluster, region, bucket, state bucket). A shell that still holds another environment's exports
 * stops with both sources named, unless IDENTITY_FROM says which wins; every synth names the config file and the
 * variables it was built from; a misspelled variable gets a "did you mean" note.
 */
import { ConfigError, loadConfig, misspelledVariables } from '../../config/load';
import { editDistance } from '../../util/edit-distance';
import { loadDeployment } from '../../config/deployment';
import { pipelineNameProblem } from '../../jobs/names';
import { configFile } from '../util';

/** Prod's config file, written before each test (not at module load, so a mutation run attributes it to the test). */
let PROD: string;
beforeEach(() => {
  PROD = configFile((c) => {
    Object.assign(c, { project: 'acme-prod', clusterName: 'prod-tpu', region: 'us-east5', zone: 'us-east5-b', bucket: 'acme-prod-ckpt', stateBucket: 'acme-prod-tf' });
    c.tpu.reservation = 'acme-prod-v6e-32';
  });
});
/** What dev's tutorial block exported. */
const DEV_EXPORTS = { PROJECT: 'acme-dev', CLUSTER_NAME: 'dev-tpu', GCS_BUCKET: 'acme-dev-ckpt', STATE_BUCKET: 'acme-dev-tf', REGION: 'us-central1', ZONE: 'us-central1-a' };

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('no ConfigError');
}

test("dev's exports with prod's config file: stops, naming each identity value's two sources; nothing is built", () => {
  const e = errorOf(() => loadConfig({ env: { ...DEV_EXPORTS, CONFIG_FILE: PROD } }));
  const file = e.message.match(/, (\S+): project is/)![1];
  const fix = "the config file and the environment name different deployments; unset PROJECT to use the file's, or say which wins: IDENTITY_FROM=file (the file's) or IDENTITY_FROM=env (the environment's)";
  expect(e.issues).toContain(`PROJECT (env) is 'acme-dev', ${file}: project is 'acme-prod': ${fix}`);
  for (const [variable, key] of [['CLUSTER_NAME', 'clusterName'], ['GCS_BUCKET', 'bucket'], ['STATE_BUCKET', 'stateBucket'], ['REGION', 'region']]) {
    expect(e.issues.find((i) => i.startsWith(`${variable} (env) is `))).toContain(`${file}: ${key} is `);
  }
  expect(e.issues).toContain(`ZONE (env) is 'us-central1-a', ${file}: zone is 'us-east5-b': ${fix.replace('unset PROJECT', 'unset ZONE')}`);
  expect(e.issues).toHaveLength(6);
});

test('ZONE alone (the region derived from it) disagreeing with the file is a conflict of the zone and of the region, naming ZONE', () => {
  const e = errorOf(() => loadConfig({ env: { ZONE: 'us-central1-a', CONFIG_FILE: PROD } }));
  expect(e.issues).toHaveLength(2);
  expect(e.issues[0]).toMatch(/^ZONE \(env\) is 'us-central1', .*: region is 'us-east5': .*unset ZONE/);
  expect(e.issues[1]).toMatch(/^ZONE \(env\) is 'us-central1-a', .*: zone is 'us-east5-b': .*unset ZONE/);
});

test("the values that bind a deployment's TPU pools and alerts are its identity too: dev's reservation, zone or alert address never builds prod", () => {
  const withNotify = configFile((c) => {
    Object.assign(c, { project: 'acme-prod', clusterName: 'prod-tpu', zone: 'us-east5-b', bucket: 'acme-prod-ckpt' });
    c.tpu.reservation = 'acme-prod-v6e-32';
    c.singleHost = { reservation: 'acme-prod-v6e-8' };
    c.notify = { emails: ['oncall@acme.example'] };
  });
  const dev = { RESERVATION: 'acme-dev-v6e-32', SINGLE_HOST_RESERVATION: 'acme-dev-v6e-8', ZONE: 'us-east5-c', NOTIFY_EMAIL: 'dev@acme.example' };
  const e = errorOf(() => loadConfig({ env: { ...dev, CONFIG_FILE: withNotify } }));
  expect(e.issues.map((i) => i.split(':')[0] + i.slice(i.indexOf(': ') + 1).split(': the config')[0].replace(/^.*?: /, ': '))).toEqual([
    "ZONE (env) is 'us-east5-c', " + withNotify + ": zone is 'us-east5-b'",
    "RESERVATION (env) is 'acme-dev-v6e-32', " + withNotify + ": tpu.reservation is 'acme-prod-v6e-32'",
    "SINGLE_HOST_RESERVATION (env) is 'acme-dev-v6e-8', " + withNotify + ": singleHost.reservation is 'acme-prod-v6e-8'",
    'NOTIFY_EMAIL (env) is ["dev@acme.example"], ' + withNotify + ': notify.emails is ["oncall@acme.example"]',
  ].map((i) => i.split(':')[0] + i.slice(i.indexOf(': ') + 1).split(': the config')[0].replace(/^.*?: /, ': ')));
  const kept = loadConfig({ env: { ...dev, CONFIG_FILE: withNotify, IDENTITY_FROM: 'file' } }).config;
  expect([kept.zone, kept.tpu.reservation, kept.singleHost?.reservation, kept.notify.emails]).toEqual(['us-east5-b', 'acme-prod-v6e-32', 'acme-prod-v6e-8', ['oncall@acme.example']]);
  // The same address (a list of the same items) is no disagreement.
  expect(loadConfig({ env: { NOTIFY_EMAIL: 'oncall@acme.example', CONFIG_FILE: withNotify } }).config.notify.emails).toEqual(['oncall@acme.example']);
});

test('IDENTITY_FROM=file keeps the file and says the environment was ignored; IDENTITY_FROM=env lets it win and says so', () => {
  const file = loadConfig({ env: { ...DEV_EXPORTS, ZONE: '', CONFIG_FILE: PROD, IDENTITY_FROM: 'file' } });
  expect(file.config).toMatchObject({ project: 'acme-prod', clusterName: 'prod-tpu', bucket: 'acme-prod-ckpt', stateBucket: 'acme-prod-tf', region: 'us-east5' });
  expect(file.notices.find((n) => n.startsWith('IDENTITY_FROM=file'))).toMatch(/wins over the environment, which is ignored for: PROJECT \(env\) is 'acme-dev'/);
  const envWins = loadConfig({ env: { ...DEV_EXPORTS, ZONE: 'us-central1-a', CONFIG_FILE: PROD, IDENTITY_FROM: 'env' } });
  expect(envWins.config).toMatchObject({ project: 'acme-dev', clusterName: 'dev-tpu', bucket: 'acme-dev-ckpt', region: 'us-central1' });
  expect(envWins.notices.find((n) => n.startsWith('IDENTITY_FROM=env'))).toContain('the environment wins over');
  expect(errorOf(() => loadConfig({ env: { CONFIG_FILE: PROD, IDENTITY_FROM: 'shell' } })).issues).toEqual([
    "IDENTITY_FROM (env): must be env or file (which wins when the config file and the environment disagree on project, clusterName, region, bucket, stateBucket, zone, tpu.reservation, singleHost.reservation, notify.emails), got 'shell'",
  ]);
});

test("no conflict: the same values in both, the example config, and the example's placeholders a file copied (project, bucket)", () => {
  expect(() => loadConfig({ env: { PROJECT: 'acme-prod', CLUSTER_NAME: 'prod-tpu', CONFIG_FILE: PROD } })).not.toThrow();
  expect(loadConfig({ env: DEV_EXPORTS }).config.project).toBe('acme-dev');
  const copied = configFile(() => undefined);
  expect(loadConfig({ env: { PROJECT: 'acme-dev', GCS_BUCKET: 'acme-dev-ckpt', CONFIG_FILE: copied } }).config.project).toBe('acme-dev');
  // The example's cluster name and region are real defaults: a copied file owns them.
  expect(errorOf(() => loadConfig({ env: { CLUSTER_NAME: 'dev-tpu', CONFIG_FILE: copied } })).issues[0]).toMatch(/^CLUSTER_NAME \(env\) is 'dev-tpu', .*: clusterName is 'tpu-post-train'/);
});

test('every synth names the environment, the config file and the variables it was built from', () => {
  const d = loadDeployment({ env: { CONFIG_FILE: PROD, CLUSTER_NODEPOOL_COUNT: '1' } });
  expect(d.origin.name).toBe('acme-prod.prod-tpu');
  expect(d.origin.line).toMatch(/^environment acme-prod\.prod-tpu \(project acme-prod, cluster prod-tpu, region us-east5\), built from \S+\.json \(CONFIG_FILE\) and env CLUSTER_NODEPOOL_COUNT$/);
  expect(loadDeployment({ env: {} }).origin.line).toBe(
    'environment my-tpu-project.tpu-post-train (project my-tpu-project, cluster tpu-post-train, region us-east5), built from config/example.json (the default: CONFIG_FILE unset) and no environment variable',
  );
});

test('a misspelled variable close to a known name: a "did you mean" note, its value not read; far names and known ones: none', () => {
  expect(misspelledVariables({ TPU_CAPACTIY: 'spot', CLUSTER_NAM: 'x', REGON: 'y', HOME: '/root', PATH: '/bin', TPU_CAPACITY: 'spot', PROJECT_ID: 'p' })).toEqual([
    'CLUSTER_NAM is set but not read by this program: did you mean CLUSTER_NAME? (its value was not read)',
    'REGON is set but not read by this program: did you mean REGION? (its value was not read)',
    'TPU_CAPACTIY is set but not read by this program: did you mean TPU_CAPACITY? (its value was not read)',
  ]);
  expect(loadConfig({ env: { TPU_CAPACTIY: 'spot' } }).notices).toContain('TPU_CAPACTIY is set but not read by this program: did you mean TPU_CAPACITY? (its value was not read)');
  expect(editDistance('TPU_CAPACTIY', 'TPU_CAPACITY')).toBe(1);
  expect(editDistance('ZONE', 'ZONES')).toBe(1);
  expect(editDistance('abc', 'abc')).toBe(0);
});

test("a pipeline named 'abc-' (or 'Abc', '1abc') is refused at synth with the rule; Kubernetes would refuse its label value only at plan", () => {
  for (const name of ['abc-', 'Abc', '1abc', 'a'.repeat(64)]) {
    const file = configFile((c) => (c.pipelines[name] = { extends: 'rl-qwen3', overrides: { run_name: 'other' } }));
    const e = errorOf(() => loadDeployment({ env: { CONFIG_FILE: file } }));
    expect(e.issues).toContainEqual(expect.stringMatching(new RegExp(`: pipelines\\.${name}: pipeline name must start with a lowercase letter, .* got '${name}'$`)));
  }
  expect(pipelineNameProblem('abc-1')).toBeUndefined();
});
