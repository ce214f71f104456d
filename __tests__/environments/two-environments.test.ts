/**
 * Dev and prod from one checkout (docs/operations.md "Two environments"): one config file each, the same project
 * (the worst case: every project-scoped name must differ), the same state bucket. Nothing collides: no state key, no
 * secret, no bucket, no Kueue queue, no notification policy, no service account; each stack's preflight reads its own
 * environment's secret and reservations.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TerraformStack, Testing } from 'cdktf';
import { loadDeployment } from '../../config/deployment';
import { buildApp } from '../../stacks/app';
import { configFile } from '../util';

type Json = Record<string, any>;
const COMMON = { STATE_BUCKET: 'acme-tf-state', NOTIFY_EMAIL: 'ml-oncall@acme.example', BUCKET_ACCESS: 'objects' };
const ENVIRONMENTS = {
  dev: configFile((c) => {
    Object.assign(c, { project: 'acme-tpu', clusterName: 'dev-tpu', bucket: 'acme-dev-ckpt', controlPlane: { ...c.controlPlane, authorizedCidrs: ['198.18.0.0/15'] } });
    c.tpu.reservation = 'acme-dev-v6e-32';
  }),
  prod: configFile((c) => {
    Object.assign(c, { project: 'acme-tpu', clusterName: 'prod-tpu', bucket: 'acme-prod-ckpt', controlPlane: { ...c.controlPlane, authorizedCidrs: ['198.18.0.0/15'] } });
    c.tpu.reservation = 'acme-prod-v6e-32';
  }),
};

/** Every stack of one environment, as Terraform JSON, with the deployment it came from. */
function synthesize(name: keyof typeof ENVIRONMENTS) {
  const deployment = loadDeployment({ env: { ...COMMON, SINGLE_HOST_RESERVATION: `${name}-v6e-8`, CONFIG_FILE: ENVIRONMENTS[name] } });
  const app = buildApp(deployment, { outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-env-')) });
  const stacks: Record<string, Json> = {};
  for (const c of app.node.children) if (c instanceof TerraformStack) stacks[c.node.id] = JSON.parse(Testing.synth(c));
  return { deployment, stacks };
}
const dev = synthesize('dev');
const prod = synthesize('prod');

/** Values of `attribute` of every resource (or data source) of `type` in every stack. */
function values(env: { stacks: Record<string, Json> }, type: string, attribute: string, kind: 'resource' | 'data' = 'resource'): string[] {
  return Object.values(env.stacks).flatMap((tf) => Object.values<Json>(tf[kind]?.[type] ?? {}).map((r) => JSON.stringify(r[attribute])));
}
function disjoint(a: readonly string[], b: readonly string[]): void {
  expect(a.length).toBeGreaterThan(0);
  expect(b.length).toBe(a.length);
  expect(a.filter((x) => b.includes(x))).toEqual([]);
}

test('both environments deploy the same stacks', () => {
  expect(Object.keys(dev.stacks).sort()).toEqual(['infra', 'rl-gemma4', 'rl-llama3', 'rl-qwen3', 'sft-gemma4']);
  expect(Object.keys(prod.stacks).sort()).toEqual(Object.keys(dev.stacks).sort());
});

test('no state key is shared: each stack of each environment has its own prefix in the one state bucket', () => {
  const keys = (env: typeof dev) => Object.values(env.stacks).map((tf) => `${tf.terraform.backend.gcs.bucket}/${tf.terraform.backend.gcs.prefix}`);
  disjoint(keys(dev), keys(prod));
  expect(new Set(keys(dev)).size).toBe(5);
  expect(dev.stacks.infra!.terraform.backend.gcs.prefix).toBe('tpu-post-training/acme-tpu/dev-tpu/infra');
  expect(prod.stacks['rl-qwen3']!.terraform.backend.gcs.prefix).toBe('tpu-post-training/acme-tpu/prod-tpu/rl-qwen3');
});

test('no secret, bucket or service account is shared', () => {
  disjoint(values(dev, 'google_secret_manager_secret', 'secret_id'), values(prod, 'google_secret_manager_secret', 'secret_id'));
  expect(values(dev, 'google_secret_manager_secret', 'secret_id')).toEqual(['"dev-tpu-hf-token"']);
  disjoint(values(dev, 'google_storage_bucket', 'name'), values(prod, 'google_storage_bucket', 'name'));
  disjoint(values(dev, 'google_service_account', 'account_id'), values(prod, 'google_service_account', 'account_id'));
  disjoint(values(dev, 'google_project_iam_custom_role', 'role_id'), values(prod, 'google_project_iam_custom_role', 'role_id'));
});

test('no network, firewall rule, log metric, alert policy or notification channel is shared in the project', () => {
  for (const [type, attribute] of [
    ['google_compute_network', 'name'],
    ['google_compute_firewall', 'name'],
    ['google_compute_router', 'name'],
    ['google_logging_metric', 'name'],
    ['google_monitoring_alert_policy', 'display_name'],
    ['google_monitoring_notification_channel', 'display_name'],
  ] as const) {
    disjoint(values(dev, type, attribute), values(prod, type, attribute));
  }
});

test('Kueue queues: the same names, each in its own cluster (the queues chart installs into the cluster infra creates)', () => {
  const queues = (env: typeof dev) => env.deployment.queues.objects.filter((o: any) => /Queue$/.test(o.kind)).map((o: any) => `${env.deployment.platform.clusterName}/${o.kind}/${o.metadata.name}`);
  disjoint(queues(dev), queues(prod));
  const clusters = (env: typeof dev) => values(env, 'google_container_cluster', 'name').concat(values(env, 'google_container_cluster', 'name', 'data'));
  expect(new Set(clusters(dev))).toEqual(new Set(['"dev-tpu"']));
  expect(new Set(clusters(prod))).toEqual(new Set(['"prod-tpu"']));
});

test("each environment's preflight checks its own secret and its own reservations", () => {
  expect(new Set(values(dev, 'google_secret_manager_secret_version', 'secret', 'data'))).toEqual(new Set(['"dev-tpu-hf-token"']));
  expect(new Set(values(prod, 'google_secret_manager_secret_version', 'secret', 'data'))).toEqual(new Set(['"prod-tpu-hf-token"']));
  const reservations = (env: typeof dev) => values(env, 'google_compute_reservation', 'name', 'data').sort();
  expect(reservations(dev)).toEqual(['"acme-dev-v6e-32"', '"dev-v6e-8"']);
  expect(reservations(prod)).toEqual(['"acme-prod-v6e-32"', '"prod-v6e-8"']);
  // Each pipeline stack's token check names its own environment's command.
  expect(dev.deployment.platform.hfTokenSecretCommand).toBe(`printf '%s' "$HF_TOKEN" | gcloud secrets versions add dev-tpu-hf-token --project=acme-tpu --data-file=-`);
});
