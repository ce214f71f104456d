import type { Capacity } from '../../jobs/capacity';
import { kueueObjects, kueueQuota, provisioningCheckName, provisioningObjects, tpuFlavorName } from '../../jobs/kueue';
import { allocatable, doesNotFit, machineShape, sumRequests } from '../../jobs/machines';
import { derivePlatform } from '../../jobs/platform';
import { parseBytes, parseMillicores } from '../../jobs/quantity';
import { supportedTopologies, TPU_MACHINE_TYPES, tpuSlice } from '../../jobs/tpu';
import { testPlatform } from './fixtures';

/** A platform in namespace ml with these TPU groups. */
const platformWith = (tpuGroups: Parameters<typeof derivePlatform>[0]['tpuGroups']) =>
  derivePlatform({ project: 'p', region: 'us-east5', zone: 'us-east5-b', clusterName: 'c', bucket: 'b', namespace: 'ml', cpuMachineType: 'n4-highmem-64', tpuGroups });
const platform = (slices: number) => platformWith([{ slice: tpuSlice('ct6e-standard-4t', '4x8'), count: slices, capacity: { type: 'spot' } }]);

test('TPU quota is the chips of all slices of a shape; flavor cpu/memory are the TPU hosts', () => {
  expect(kueueQuota({ platform: platform(1), cpuPoolMaxNodes: 2 })).toMatchObject({
    tpuChips: 32,
    tpuFlavors: [{ flavor: 'tpu-v6e-32', chips: 32, cpu: 1440, memoryGi: 5760 }],
  });
  expect(kueueQuota({ platform: platform(3), cpuPoolMaxNodes: 2 }).tpuChips).toBe(96);
});

test('one TPU flavor per slice shape: accelerator + topology labels, the TPU taint, no flavor tolerations; CPU flavor last', () => {
  const [tpuFlavor, cpuFlavor, , localQueue] = kueueObjects({ platform: platform(1), cpuPoolMaxNodes: 1 }) as any[];
  expect(tpuFlavor.metadata.name).toBe('tpu-v6e-32');
  expect(tpuFlavor.spec).toEqual({
    nodeLabels: { 'cloud.google.com/gke-tpu-accelerator': 'tpu-v6e-slice', 'cloud.google.com/gke-tpu-topology': '4x8' },
    nodeTaints: [{ key: 'google.com/tpu', value: 'present', effect: 'NoSchedule' }],
  });
  expect(cpuFlavor.metadata.name).toBe('cpu-np');
  expect(cpuFlavor.spec.nodeLabels).toEqual({ 'cloud.google.com/gke-nodepool': 'cpu-np' });
  expect(localQueue).toEqual({
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'LocalQueue',
    metadata: { name: 'user-queue', namespace: 'ml' },
    spec: { clusterQueue: 'cluster-queue' },
  });
});

test('CPU flavor quota scales with the pool ceiling', () => {
  const one = kueueQuota({ platform: platform(1), cpuPoolMaxNodes: 1 });
  const four = kueueQuota({ platform: platform(1), cpuPoolMaxNodes: 4 });
  expect(four.cpuFlavorCpu).toBe(one.cpuFlavorCpu * 4);
  expect(four.cpuFlavorMemoryGi).toBe(one.cpuFlavorMemoryGi * 4);
});

test('allocatable follows GKE reservations: n4-highmem-64 keeps about 493 GiB and 62 cores for pods', () => {
  const free = allocatable(machineShape('n4-highmem-64'));
  expect(free.bytes / 2 ** 30).toBeCloseTo(493.2, 0);
  expect(free.millicores).toBeGreaterThan(61000);
  expect(free.millicores).toBeLessThan(63000);
});

test('fit check names the resource, the request and the machine', () => {
  expect(doesNotFit(sumRequests([{ cpu: '8', memory: '190Gi' }]), 'n4-highmem-64')).toBeUndefined();
  expect(doesNotFit(sumRequests([{ cpu: '8', memory: '300Gi' }]), 'n4-standard-64')).toBe('memory 300.0Gi > 242.0Gi allocatable on n4-standard-64');
  expect(doesNotFit(sumRequests([{ cpu: '70', memory: '1Gi' }]), 'n4-highmem-64')).toMatch(/^cpu 70 > 6\d\.\d\d allocatable on n4-highmem-64$/);
});

test('unknown machine types and bad quantities are rejected with the allowed forms', () => {
  expect(() => machineShape('x9-mega-1', 'cpuPool.machineType')).toThrow(/^cpuPool.machineType must be one of e2-standard-8, .*, got 'x9-mega-1'/);
  expect(parseBytes('190Gi')).toBe(190 * 2 ** 30);
  expect(parseBytes('200G')).toBe(200e9);
  expect(parseMillicores('500m')).toBe(500);
  expect(() => parseBytes('190 GB')).toThrow("memory must be a Kubernetes quantity such as 64Gi or 200G, got '190 GB'");
  expect(() => parseMillicores('two')).toThrow("cpu must be a Kubernetes CPU quantity such as 8 or 500m, got 'two'");
});

describe('flex-start flavors: a ProvisioningRequest admission check each (Kueue v0.19.2, GKE queued provisioning)', () => {
  const flexPlatform = (single: Capacity = { type: 'reservation', reservation: 'res-v6e-8' }, hours = 24) =>
    platformWith([
      { slice: tpuSlice('ct6e-standard-4t', '4x8'), count: 1, capacity: { type: 'flex-start', maxRunDurationSeconds: hours * 3600 } },
      { slice: tpuSlice('ct6e-standard-8t', '2x4'), count: 1, capacity: single },
    ]);
  const byKind = (objects: any[], kind: string) => objects.filter((o) => o.kind === kind);

  test('reservation and spot platforms get no check, no config, no strategy and no flavor toleration (unchanged)', () => {
    for (const p of [platform(1), testPlatform()]) {
      const objects = kueueObjects({ platform: p, cpuPoolMaxNodes: 1 }) as any[];
      expect(objects.map((o) => o.kind)).toEqual([...p.tpuGroups.map(() => 'ResourceFlavor'), 'ResourceFlavor', 'ClusterQueue', 'LocalQueue']);
      expect(Object.keys(byKind(objects, 'ClusterQueue')[0].spec)).toEqual(['namespaceSelector', 'queueingStrategy', 'preemption', 'resourceGroups']);
      for (const f of byKind(objects, 'ResourceFlavor')) expect(f.spec.tolerations).toBeUndefined();
    }
  });

  test('GIVEN a flex-start v6e-32 and a reserved v6e-8 THEN only the flex-start flavor is checked, tolerates the queued taint, and asks GKE with its run duration', () => {
    const objects = kueueObjects({ platform: flexPlatform(), cpuPoolMaxNodes: 1 }) as any[];
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'ResourceFlavor/tpu-v6e-32',
      'ResourceFlavor/tpu-v6e-8-8t',
      'ResourceFlavor/cpu-np',
      'ProvisioningRequestConfig/tpu-v6e-32-provisioning',
      'AdmissionCheck/tpu-v6e-32-provisioning',
      'ClusterQueue/cluster-queue',
      'LocalQueue/user-queue',
    ]);
    const [flex, reserved] = byKind(objects, 'ResourceFlavor');
    expect(flex.spec.tolerations).toEqual([{ key: 'cloud.google.com/gke-queued', operator: 'Equal', value: 'true', effect: 'NoSchedule' }]);
    expect(flex.spec.nodeTaints).toEqual([{ key: 'google.com/tpu', value: 'present', effect: 'NoSchedule' }]);
    expect(reserved.spec.tolerations).toBeUndefined();
    expect(byKind(objects, 'ProvisioningRequestConfig')[0].spec).toEqual({
      provisioningClassName: 'queued-provisioning.gke.io',
      managedResources: ['google.com/tpu'],
      parameters: { maxRunDurationSeconds: '86400', 'tpu-topology': '4x8' },
      retryStrategy: { backoffLimitCount: 3, backoffBaseSeconds: 60, backoffMaxSeconds: 1800 },
    });
    expect(byKind(objects, 'AdmissionCheck')[0].spec).toEqual({
      controllerName: 'kueue.x-k8s.io/provisioning-request',
      parameters: { apiGroup: 'kueue.x-k8s.io', kind: 'ProvisioningRequestConfig', name: 'tpu-v6e-32-provisioning' },
    });
    const cq = byKind(objects, 'ClusterQueue')[0];
    expect(cq.spec.admissionChecksStrategy).toEqual({ admissionChecks: [{ name: 'tpu-v6e-32-provisioning', onFlavors: ['tpu-v6e-32'] }] });
    // Kueue's webhook refuses onFlavors that name no flavor of the ClusterQueue (pkg/webhooks/clusterqueue_webhook.go).
    const cqFlavors = cq.spec.resourceGroups.flatMap((g: any) => g.flavors.map((f: any) => f.name));
    for (const check of cq.spec.admissionChecksStrategy.admissionChecks) for (const f of check.onFlavors) expect(cqFlavors).toContain(f);
  });

  test('the run duration follows the capacity (tpu.flexStartMaxRunHours): 48 h -> "172800"', () => {
    const prc = byKind(kueueObjects({ platform: flexPlatform(undefined, 48), cpuPoolMaxNodes: 1 }) as any[], 'ProvisioningRequestConfig')[0];
    expect(prc.spec.parameters.maxRunDurationSeconds).toBe('172800');
  });

  test('both slices on flex-start: one check per flavor, each on its own flavor and topology', () => {
    const objects = kueueObjects({ platform: flexPlatform({ type: 'flex-start', maxRunDurationSeconds: 3600 }), cpuPoolMaxNodes: 1 }) as any[];
    expect(byKind(objects, 'ClusterQueue')[0].spec.admissionChecksStrategy.admissionChecks).toEqual([
      { name: 'tpu-v6e-32-provisioning', onFlavors: ['tpu-v6e-32'] },
      { name: 'tpu-v6e-8-8t-provisioning', onFlavors: ['tpu-v6e-8-8t'] },
    ]);
    expect(byKind(objects, 'ProvisioningRequestConfig').map((p) => p.spec.parameters)).toEqual([
      { maxRunDurationSeconds: '86400', 'tpu-topology': '4x8' },
      { maxRunDurationSeconds: '3600', 'tpu-topology': '2x4' },
    ]);
  });

  test('slices of one shape with different capacities are an error naming the flavor and both capacities', () => {
    const mixed = platformWith([
      { slice: tpuSlice('ct6e-standard-4t', '4x8'), count: 1, capacity: { type: 'flex-start', maxRunDurationSeconds: 3600 } },
      { slice: tpuSlice('ct6e-standard-4t', '4x8'), count: 1, capacity: { type: 'spot' } },
    ]);
    expect(() => kueueObjects({ platform: mixed, cpuPoolMaxNodes: 1 })).toThrow(
      'TPU flavor "tpu-v6e-32": every slice of one shape must share one capacity, got {"type":"flex-start","maxRunDurationSeconds":3600} and {"type":"spot"}',
    );
  });

  test('a check for a flavor that is not flex-start is an error naming the flavor and the capacity', () => {
    expect(() => provisioningObjects({ flavor: 'tpu-v6e-32', slice: tpuSlice('ct6e-standard-4t', '4x8'), capacity: { type: 'spot' } })).toThrow(
      `TPU flavor "tpu-v6e-32": a ProvisioningRequest admission check needs capacity 'flex-start', got "spot"`,
    );
  });

  // The AdmissionCheck and ProvisioningRequestConfig CRDs are not among ../shared/schemas (crd-schemas.test.ts), so
  // the objects are checked against the Go types read at kubernetes-sigs/kueue v0.19.2 instead:
  // apis/kueue/v1beta2/admissioncheck_types.go (AdmissionCheckSpec, AdmissionCheckParametersReference) and
  // provisioningrequestconfig_types.go (ProvisioningRequestConfigSpec, ProvisioningRequestRetryStrategy, Parameter).
  const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
  test('every object fits its v0.19.2 Go type: known fields only, the patterns and lengths the markers set', () => {
    const objects = kueueObjects({ platform: flexPlatform({ type: 'flex-start', maxRunDurationSeconds: 604800 }), cpuPoolMaxNodes: 1 }) as any[];
    for (const prc of byKind(objects, 'ProvisioningRequestConfig')) {
      expect(Object.keys(prc.spec).filter((k) => !['provisioningClassName', 'parameters', 'managedResources', 'retryStrategy', 'podSetUpdates', 'podSetMergePolicy'].includes(k))).toEqual([]);
      expect(prc.spec.provisioningClassName).toMatch(DNS_SUBDOMAIN);
      expect(prc.spec.provisioningClassName.length).toBeLessThanOrEqual(253);
      expect(Object.keys(prc.spec.parameters).length).toBeLessThanOrEqual(100);
      for (const v of Object.values(prc.spec.parameters)) expect(typeof v === 'string' && v.length <= 255).toBe(true);
      expect(prc.spec.managedResources.length).toBeLessThanOrEqual(100);
      expect(Object.keys(prc.spec.retryStrategy).sort()).toEqual(['backoffBaseSeconds', 'backoffLimitCount', 'backoffMaxSeconds']);
      for (const v of Object.values(prc.spec.retryStrategy)) expect(Number.isInteger(v) && (v as number) >= 0 && (v as number) < 2 ** 31).toBe(true);
    }
    for (const ac of byKind(objects, 'AdmissionCheck')) {
      expect(Object.keys(ac.spec).sort()).toEqual(['controllerName', 'parameters']);
      expect(ac.spec.controllerName.length).toBeGreaterThanOrEqual(1);
      expect(ac.spec.controllerName.length).toBeLessThanOrEqual(253);
      expect(ac.spec.parameters.apiGroup).toMatch(DNS_SUBDOMAIN);
      expect(ac.spec.parameters.kind).toMatch(/^[a-z]([-a-z0-9]*[a-z0-9])?$/i);
      expect(ac.spec.parameters.kind.length).toBeLessThanOrEqual(63);
      expect(ac.spec.parameters.name).toMatch(DNS_LABEL);
      expect(ac.spec.parameters.name.length).toBeLessThanOrEqual(63);
      // ... and names the config the same list ships.
      expect(byKind(objects, 'ProvisioningRequestConfig').map((p) => p.metadata.name)).toContain(ac.spec.parameters.name);
    }
  });

  test('the check name of every slice shape of the TPU table fits the reference (63 characters, DNS label)', () => {
    for (const machineType of TPU_MACHINE_TYPES) {
      for (const topology of supportedTopologies(machineType)) {
        const name = provisioningCheckName(tpuFlavorName(tpuSlice(machineType, topology)));
        expect({ name, ok: name.length <= 63 && DNS_LABEL.test(name) }).toEqual({ name, ok: true });
      }
    }
  });
});
