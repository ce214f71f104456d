/** `google_container_cluster`: the control plane's reach (allow-list, DNS/IP endpoints), private nodes, protection. */
import { arrow, block, bool, list, nameOf, isObj, resolveRefs, str, TfResource } from '../values';
import type { ChangeContext, ExtractContext, ResourceDescriber } from './types';

/** The facts this describer adds to a stack's model and reads of a change (review/model.ts StackFacts). */
type Facts = { readonly controlPlanes: readonly ControlPlane[] };

export interface ControlPlane {
  readonly stack: string;
  readonly address: string;
  readonly name: string;
  /** Undefined when `master_authorized_networks_config` is absent (any address may reach the IP endpoint). */
  readonly authorizedNetworks?: ReadonlyArray<{ cidr: string; displayName?: string }>;
  readonly gcpPublicCidrsAccess: boolean;
  readonly privateNodes: boolean;
  readonly privateEndpoint: boolean;
  /** DNS-based endpoint (IAM-authorized) reachable from outside Google's network. */
  readonly dnsEndpointExternal: boolean;
  /** False only when the IP endpoints are explicitly disabled. */
  readonly ipEndpointEnabled: boolean;
  readonly legacyAbac: boolean;
  readonly deletionProtection: boolean;
  readonly removeDefaultNodePool: boolean;
  readonly defaultPoolServiceAccount?: string;
}

function controlPlane(r: TfResource, { stack, json }: ExtractContext): ControlPlane {
  const a = r.attrs;
  const man = block(a.master_authorized_networks_config);
  const priv = block(a.private_cluster_config) ?? {};
  const endpoints = block(a.control_plane_endpoints_config) ?? {};
  const dns = block(endpoints.dns_endpoint_config);
  const ip = block(endpoints.ip_endpoints_config);
  const sa = str(block(a.node_config)?.service_account);
  return {
    stack,
    address: r.address,
    name: nameOf(r),
    authorizedNetworks: man
      ? list(man.cidr_blocks).filter(isObj).map((c) => ({ cidr: String(c.cidr_block), displayName: str(c.display_name) }))
      : undefined,
    gcpPublicCidrsAccess: bool(man?.gcp_public_cidrs_access_enabled),
    privateNodes: bool(priv.enable_private_nodes),
    privateEndpoint: bool(priv.enable_private_endpoint),
    dnsEndpointExternal: bool(dns?.allow_external_traffic),
    ipEndpointEnabled: ip?.enabled === undefined ? true : bool(ip.enabled),
    legacyAbac: bool(a.enable_legacy_abac),
    // Provider >= 5 defaults deletion_protection to true.
    deletionProtection: a.deletion_protection === undefined ? true : bool(a.deletion_protection),
    removeDefaultNodePool: bool(a.remove_default_node_pool),
    defaultPoolServiceAccount: sa === undefined ? undefined : resolveRefs(sa, json),
  };
}

function describe({ b, a, verb }: ChangeContext<Facts>): string[] | undefined {
  const bcp = b?.controlPlanes[0];
  const acp = a?.controlPlanes[0];
  if (!bcp && !acp) return undefined;
  const p = (acp ?? bcp)!;
  const nets = (x = p) => (x.authorizedNetworks ? x.authorizedNetworks.map((n) => n.cidr).join(', ') || '(empty)' : '(any)');
  if (verb) return [`cluster ${p.name} ${verb}: control-plane allow-list ${nets()}`];
  const parts = [
    arrow('control-plane allow-list', nets(bcp!), nets(acp!)),
    arrow('DNS endpoint (external)', bcp!.dnsEndpointExternal, acp!.dnsEndpointExternal),
    arrow('IP endpoint', bcp!.ipEndpointEnabled, acp!.ipEndpointEnabled),
    arrow('private nodes', bcp!.privateNodes, acp!.privateNodes),
    arrow('deletion protection', bcp!.deletionProtection, acp!.deletionProtection),
  ].filter(Boolean);
  return parts.length ? [`cluster ${p.name}: ${parts.join(', ')}`] : [];
}

export const containerCluster: ResourceDescriber<Facts> = {
  types: ['google_container_cluster'],
  extract: (r, ctx) => ({ controlPlanes: [controlPlane(r, ctx)] }),
  describe,
};
