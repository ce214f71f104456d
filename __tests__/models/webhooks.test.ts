/**
 * Can the control plane reach the controllers' webhooks? On a private GKE cluster the control plane reaches nodes on
 * 443 and 10250 only (GKE docs, "Add firewall rules for specific use cases" for private clusters); anything else needs
 * an ingress rule from the control-plane range. JobSet's webhook listens on 9443 (jobset v0.12.0
 * charts/jobset/templates/controller/deployment.yaml), Kueue's on 9443 (Configuration webhook.port) and Kueue's
 * visibility API server on 8082 (kueue v0.19.2 charts/kueue/templates/visibility/service.yaml); the webhooks have
 * failurePolicy Fail, so an unreachable one blocks every JobSet and Job create.
 */
import { allConfigurations, Obj } from './synthesized';

const GKE_DEFAULT_CONTROL_PLANE_PORTS = [443, 10250];
const CONTROLLER_PORTS: Record<string, number[]> = { jobset: [9443], kueue: [9443, 8082] };

function allows(rule: Obj, port: number): boolean {
  return (rule.allow ?? []).some(
    (a: Obj) => a.protocol === 'tcp' && (!a.ports || a.ports.some((p: string) => (p.includes('-') ? port >= Number(p.split('-')[0]) && port <= Number(p.split('-')[1]) : Number(p) === port))),
  );
}

describe.each(allConfigurations())('the control plane reaches every webhook port on every node (%s)', (_name, synth) => {
  const cluster: Obj = Object.values(synth.infra.resource.google_container_cluster as Record<string, Obj>)[0];
  const source = cluster.private_cluster_config.master_ipv4_cidr_block;
  const rules = Object.values((synth.infra.resource.google_compute_firewall ?? {}) as Record<string, Obj>).filter(
    (r) => r.direction === 'INGRESS' && (r.source_ranges ?? []).includes(source) && r.network === cluster.network,
  );
  const releases = Object.values(synth.infra.resource.helm_release as Record<string, Obj>);
  const cases = releases.filter((r) => CONTROLLER_PORTS[r.name]).flatMap((r) => CONTROLLER_PORTS[r.name].map((port) => [`${r.name}:${port}`, port] as const));

  test.each(cases)('%s', (_label, port) => {
    for (const pool of synth.nodePools) {
      const reachable =
        GKE_DEFAULT_CONTROL_PLANE_PORTS.includes(port) ||
        rules.some((r) => allows(r, port) && (!r.target_service_accounts || r.target_service_accounts.includes(pool.serviceAccount)));
      expect({ pool: pool.name, port, reachable }).toEqual({ pool: pool.name, port, reachable: true });
    }
  });
});
