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

test("a documentation range the user set is not called the example's placeholder: one line of its own, naming curl -4", () => {
  const { notices, placeholders } = loadConfig({ env: { PROJECT: 'acme-tpu', GCS_BUCKET: 'acme-ckpt', RESERVATION: 'acme-v6e-32', AUTHORIZED_CIDR: '198.51.100.0/24' } });
  expect(notices.filter((n) => n.includes('placeholder'))).toEqual([]);
  expect(notices.filter((n) => n.includes('198.51.100.0/24'))).toEqual([
    "AUTHORIZED_CIDR (env): controlPlane.authorizedCidrs '198.51.100.0/24' is a documentation range (RFC 5737), no real address (set AUTHORIZED_CIDR to yours: curl -4 -s ifconfig.me); a plan stops on it, before anything is created",
  ]);
  // The plan-time guard still stops on it (constructs/preflight.ts lists every placeholder's description).
  expect(placeholders.map((p) => p.value)).toEqual(['198.51.100.0/24']);
  // The example's own value is still its placeholder.
  expect(loadConfig({ env: {} }).notices.find((n) => n.startsWith('placeholders of the example config'))).toContain("controlPlane.authorizedCidrs '203.0.113.0/24' (set AUTHORIZED_CIDR)");
});
