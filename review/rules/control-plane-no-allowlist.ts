import { finding, Rule } from './types';

export const controlPlaneNoAllowlist: Rule = {
  id: 'control-plane-no-allowlist',
  summary: 'the public IP endpoint has no master_authorized_networks_config (CKV_GCP_20)',
  check: ({ models }) =>
    models
      .flatMap((m) => m.controlPlanes)
      .filter((cp) => cp.authorizedNetworks === undefined && cp.ipEndpointEnabled && !cp.privateEndpoint)
      .map((cp) =>
        finding('control-plane-no-allowlist', 'warning', cp,
          `cluster ${cp.name}: no master_authorized_networks_config, so the public IP endpoint accepts any source address (CKV_GCP_20)`,
          'set master_authorized_networks_config with the ranges that need the API, or disable the IP endpoint and use the DNS endpoint'),
      ),
};
