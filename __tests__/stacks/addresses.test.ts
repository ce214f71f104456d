/**
 * Construct ids are Terraform addresses of real deployments: renaming one plans a destroy + create (for a TPU pool,
 * the slice; for the cluster, everything). This pins every resource and data-source address of the infra stack
 * over the configurations users deploy, so a refactor (e.g. moving pools under the cluster construct) plans no
 * replacement. The fixture was taken from main before the composition refactor; a deliberate change of address
 * updates it in the same commit, with a `moved` block or a note on the migration.
 */
import * as fs from 'fs';
import * as path from 'path';
import { LEGACY_FORGOTTEN_ADDRESSES } from '../../constructs/hf-token-secret';
import { synthStack } from '../util';

const FIXTURE = path.join(__dirname, 'fixtures', 'infra-addresses.json');

const REAL = { PROJECT: 'acme-tpu-prod', GCS_BUCKET: 'acme-ckpt', AUTHORIZED_CIDR: '198.18.0.0/15', PIPELINES: 'none' };
export const ADDRESS_CONFIGS: Readonly<Record<string, Record<string, string>>> = {
  'two v6e-32 slices + single host, reservations': { ...REAL, RESERVATION: 'acme-v6e-32', SINGLE_HOST_RESERVATION: 'acme-v6e-8', CLUSTER_NODEPOOL_COUNT: '2' },
  'dns endpoint': { ...REAL, RESERVATION: 'acme-v6e-32', DNS_ENDPOINT: 'true' },
  'spot + flex-start single host': { ...REAL, TPU_CAPACITY: 'spot', SINGLE_HOST_CAPACITY: 'flex-start' },
  'tutorial 002 single host only': { ...REAL, COMPUTE_TYPE: 'ct6e-standard-8t', TOPOLOGY: '2x4', RESERVATION: 'acme-v6e-8' },
};

/** Every `resource` and `data` address of a synthesized stack, sorted. */
export function addresses(stack: any): string[] {
  const out: string[] = [];
  for (const [kind, prefix] of [['resource', ''], ['data', 'data.']] as const) {
    for (const [type, byName] of Object.entries(stack[kind] ?? {})) for (const name of Object.keys(byName as object)) out.push(`${prefix}${type}.${name}`);
  }
  return out.sort();
}

const pinned = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as Record<string, string[]>;

test.each(Object.keys(ADDRESS_CONFIGS))('infra addresses are unchanged: %s', (name) => {
  expect(addresses(synthStack('infra', ADDRESS_CONFIGS[name]))).toEqual(pinned[name]);
});

test('the fixture covers exactly these configurations', () => {
  expect(Object.keys(pinned).sort()).toEqual(Object.keys(ADDRESS_CONFIGS).sort());
});

test('the identities that moved to per-cluster names: the old addresses are forgotten (removed, destroy = false), never destroyed', () => {
  const { makeUniqueId } = require('cdktf/lib/private/unique');
  const tf = synthStack('infra', ADDRESS_CONFIGS['dns endpoint']);
  // The addresses the version before wrote: cdktf's logical ids of hf-token/secret, hf-token/reader, identity/ksa, identity/workload-identity.
  expect(LEGACY_FORGOTTEN_ADDRESSES).toEqual([
    `google_secret_manager_secret.${makeUniqueId(['hf-token', 'secret'])}`,
    `google_secret_manager_secret_iam_member.${makeUniqueId(['hf-token', 'reader'])}`,
    `kubernetes_service_account_v1.${makeUniqueId(['identity', 'ksa'])}`,
    `google_service_account_iam_member.${makeUniqueId(['identity', 'workload-identity'])}`,
  ]);
  expect(tf.removed).toEqual(LEGACY_FORGOTTEN_ADDRESSES.map((from) => ({ from, lifecycle: { destroy: false } })));
  for (const address of LEGACY_FORGOTTEN_ADDRESSES) expect(addresses(tf)).not.toContain(address);
  expect(addresses(tf)).toContain('google_secret_manager_secret.hf-token_cluster-secret_EC232AE6');
});
