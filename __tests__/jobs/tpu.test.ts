import { isTpuMachineType, sliceShapeName, supportedTopologies, tpuSlice } from '../../jobs/tpu';

describe('TPU v6e table', () => {
  test.each([
    ['ct6e-standard-4t', '2x4', 8, 2, true],
    ['ct6e-standard-4t', '4x4', 16, 4, true],
    ['ct6e-standard-4t', '4x8', 32, 8, true],
    ['ct6e-standard-4t', '8x8', 64, 16, true],
    ['ct6e-standard-4t', '8x16', 128, 32, true],
    ['ct6e-standard-4t', '16x16', 256, 64, true],
    ['ct6e-standard-8t', '2x4', 8, 1, false],
    ['ct6e-standard-1t', '1x1', 1, 1, false],
  ])('%s %s has %i chips on %i VMs (multi-host %s)', (machineType, topology, chips, vms, multiHost) => {
    const slice = tpuSlice(machineType, topology);
    expect(slice).toMatchObject({ chips, vms, multiHost });
    expect(slice.chipsPerVm * slice.vms).toBe(chips);
  });

  test('derives labels, the TPU request and the Pathways instance type for v6e-32', () => {
    const slice = tpuSlice('ct6e-standard-4t', '4x8');
    expect(slice.acceleratorType).toBe('v6e-32');
    expect(slice.nodeSelector).toEqual({
      'cloud.google.com/gke-tpu-accelerator': 'tpu-v6e-slice',
      'cloud.google.com/gke-tpu-topology': '4x8',
    });
    expect(slice.podResources).toEqual({ 'google.com/tpu': '4' });
    expect(slice.pathwaysInstanceType).toBe('tpuv6e:4x8');
    expect(sliceShapeName(slice)).toBe('v6e-32');
  });

  test('the single-host 8-chip VM has its own shape name', () => {
    const slice = tpuSlice('ct6e-standard-8t', '2x4');
    expect(slice.podResources).toEqual({ 'google.com/tpu': '8' });
    expect(sliceShapeName(slice)).toBe('v6e-8-8t');
  });

  test('rejects a topology the machine type does not support, listing the allowed ones', () => {
    expect(() => tpuSlice('ct6e-standard-4t', '4x9')).toThrow(
      "topology must be one of 2x4, 4x4, 4x8, 8x8, 8x16, 16x16 for ct6e-standard-4t, got '4x9'",
    );
    expect(() => tpuSlice('ct6e-standard-8t', '4x8', 'TOPOLOGY (env)')).toThrow(
      "TOPOLOGY (env) must be one of 2x4 for ct6e-standard-8t, got '4x8'",
    );
  });

  test('rejects a machine type that is not v6e', () => {
    expect(() => tpuSlice('ct5lp-hightpu-4t', '2x2')).toThrow(
      "machine type must be one of ct6e-standard-1t, ct6e-standard-4t, ct6e-standard-8t, got 'ct5lp-hightpu-4t'",
    );
    expect(isTpuMachineType('n4-highmem-64')).toBe(false);
    expect(supportedTopologies('ct6e-standard-1t')).toEqual(['1x1']);
  });
});
