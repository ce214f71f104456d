/** Names that carry the cluster (jobs/platform.ts) and the load-time lines that name them (config/load.ts). */
import { ConfigError, loadConfig } from '../../config/load';
import { hfTokenSecretIdOf } from '../../jobs/platform';
import { examplePlatform } from '../util';

test('the HF-token secret id carries the cluster: <cluster>-hf-token, and the command names it with --project', () => {
  expect(hfTokenSecretIdOf('dev-tpu')).toBe('dev-tpu-hf-token');
  const p = examplePlatform({ CLUSTER_NAME: 'prod-tpu', PROJECT: 'acme-tpu' });
  expect(p.hfTokenSecretId).toBe('prod-tpu-hf-token');
  expect(p.hfTokenSecretCommand).toBe(`printf '%s' "$HF_TOKEN" | gcloud secrets versions add prod-tpu-hf-token --project=acme-tpu --data-file=-`);
  // The default cluster of the example config.
  expect(examplePlatform().hfTokenSecretId).toBe('tpu-post-train-hf-token');
});

test("HF_TOKEN set: the note gives the command for this config's project and secret, --project included", () => {
  const { notices } = loadConfig({ env: { HF_TOKEN: 'hf_secret_value', PROJECT: 'acme-tpu', CLUSTER_NAME: 'dev-tpu' } });
  expect(notices.filter((n) => n.startsWith('HF_TOKEN'))).toEqual([
    `HF_TOKEN is set but not read by this program: the token never enters Terraform; store it once with: printf '%s' "$HF_TOKEN" | gcloud secrets versions add dev-tpu-hf-token --project=acme-tpu --data-file=- (its value was not read)`,
  ]);
  expect(notices.join('\n')).not.toContain('hf_secret_value');
});

test('an IPv6 address in AUTHORIZED_CIDR is refused, saying the allow-list takes IPv4 and how to get it (curl -4)', () => {
  let error: unknown;
  try {
    loadConfig({ env: { AUTHORIZED_CIDR: '2001:db8::1/128' } });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as Error).message).toContain(
    "AUTHORIZED_CIDR (env): authorized CIDR is IPv6; the control-plane allow-list takes IPv4 blocks only: your IPv4 address is curl -4 -s ifconfig.me, got '2001:db8::1/128'",
  );
});
