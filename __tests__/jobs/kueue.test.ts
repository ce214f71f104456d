import { kueueObjects, kueueQuota } from '../../jobs/kueue';
import { allocatable, doesNotFit, machineShape, sumRequests } from '../../jobs/machines';
import { derivePlatform } from '../../jobs/platform';
import { parseBytes, parseMillicores } from '../../jobs/quantity';
import { tpuSlice } from '../../jobs/tpu';

const platform = (slices: number) =>
  derivePlatform({
    project: 'p',
    region: 'us-east5',
    zone: 'us-east5-b',
    clusterName: 'c',
    bucket: 'b',
    namespace: 'ml',
    cpuMachineType: 'n4-highmem-64',
    tpuGroups: [{ slice: tpuSlice('ct6e-standard-4t', '4x8'), count: slices, capacity: { type: 'spot' } }],
  });

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
