/**
 * How long a credential lives against how long a wait runs, over every stack the app synthesizes.
 *
 * - A `token` read from `data.google_client_config.access_token` is an OAuth access token of about one hour, read
 *   once when the provider is configured (hashicorp/terraform-provider-google v6.50.0, data source
 *   google_client_config), and stored in state.
 * - An `exec` plugin credential is fetched again by client-go whenever the previous one expires
 *   (k8s.io/client-go plugin/pkg/client/auth/exec: the ExecCredential's status.expirationTimestamp), so it never
 *   runs out during a wait.
 * - The kubernetes_manifest waiter (hashicorp/terraform-provider-kubernetes v2.38.0, manifest/provider/waiter.go)
 *   polls every second until the fields match or `timeouts.create` passes, and returns on the first API error: the
 *   credential must stay valid for the whole `timeouts.create`. helm_release waits up to its `timeout` seconds.
 * - A pipeline stack no longer waits for its steps: the Workflow runs them in the cluster (jobs/argo.ts), and the
 *   Workflow's kubernetes_manifest has no wait. Earlier versions ran a local-exec wait per step for days; the check
 *   below that no stack has one (a step-wait.js command) guards against its return.
 */
import { durationSeconds } from '../../review/values';
import { allConfigurations, Obj } from './synthesized';

const ACCESS_TOKEN_SECONDS = 3600;

/** Seconds a provider's credential stays valid; Infinity when it is refreshed. */
function credentialLifetime(provider: Obj): number {
  const exec = Array.isArray(provider.exec) ? provider.exec[0] : provider.exec;
  if (exec?.command) return Infinity;
  if (provider.token) return ACCESS_TOKEN_SECONDS;
  return 0;
}

/** The longest any resource in the stack waits on the cluster, seconds. */
function longestWait(stack: Obj): number {
  const manifests = Object.values((stack.resource?.kubernetes_manifest ?? {}) as Record<string, Obj>).map((m) =>
    m.wait ? durationSeconds(m.timeouts?.create ?? '10m')! : 0,
  );
  const releases = Object.values((stack.resource?.helm_release ?? {}) as Record<string, Obj>).map((r) => Number(r.timeout ?? 300));
  const steps = stepWaits(stack).map((w) => w.seconds);
  return Math.max(0, ...manifests, ...releases, ...steps);
}

/** Every step wait's local-exec: how long it polls and with which credential plugin. */
function stepWaits(stack: Obj): Array<{ seconds: number; plugin?: string }> {
  const execs = Object.values((stack.resource?.terraform_data ?? {}) as Record<string, Obj>).flatMap((r) => (r.provisioner ?? []).map((p: Obj) => p['local-exec']));
  return execs
    .filter((e: Obj | undefined) => e && /step-wait\.js/.test(e.command))
    .map((e: Obj) => ({ seconds: Number(/--minutes (\d+)/.exec(e.command)![1]) * 60, plugin: e.environment?.KUBE_EXEC_COMMAND }));
}

describe.each(allConfigurations())('credentials outlive the waits (%s)', (_name, synth) => {
  test.each(Object.entries(synth.stacks))('%s', (_stack, json) => {
    const providers: Obj[] = [
      ...(json.provider?.kubernetes ?? []),
      ...(json.provider?.helm ?? []).map((h: Obj) => h.kubernetes),
    ];
    const wait = longestWait(json);
    expect(Number.isFinite(wait)).toBe(true);
    for (const p of providers) {
      expect({ lifetime: credentialLifetime(p), wait }).toEqual({ lifetime: Infinity, wait });
      expect(p.exec?.command ?? p.exec?.[0]?.command).toBe('gke-gcloud-auth-plugin');
    }
    for (const w of stepWaits(json)) expect(w.plugin).toBe('gke-gcloud-auth-plugin');
    // No OAuth token is read into state at all.
    expect(json.data?.google_client_config).toBeUndefined();
    for (const p of providers) expect(p.token).toBeUndefined();
  });

  test('no pipeline stack waits on the cluster: no manifest wait, no local-exec; only infra\'s Helm releases wait, for minutes', () => {
    for (const [id, json] of Object.entries(synth.stacks)) {
      if (id === 'infra') continue;
      expect([id, stepWaits(json)]).toEqual([id, []]);
      for (const m of Object.values((json.resource?.kubernetes_manifest ?? {}) as Record<string, Obj>)) expect(m.wait).toBeUndefined();
      expect(JSON.stringify(json)).not.toContain('local-exec');
    }
    const longest = Math.max(...Object.values(synth.stacks).map(longestWait));
    expect(longest).toBeLessThan(ACCESS_TOKEN_SECONDS);
  });
});
