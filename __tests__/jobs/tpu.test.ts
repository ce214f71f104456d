import {
  acceleratorTypeExamples,
  cubeTopologies,
  describeTopologies,
  generationOf,
  GENERATIONS,
  isTpuMachineType,
  sliceShapeName,
  slicesForAcceleratorType,
  supportedTopologies,
  TPU_MACHINE_TYPES,
  tpuSlice,
} from '../../jobs/tpu';

test.each([
  // generation, boot disk (Cloud TPU "Attach durable block storage": v5e/v5p Balanced PD only; v6e Hyperdisk Balanced)
  ['v5e', 'pd-balanced'],
  ['v5p', 'pd-balanced'],
  ['v6e', 'hyperdisk-balanced'],
  ['tpu7x', 'hyperdisk-balanced'],
])('generation %s boots every machine type and slice from %s', (generation, disk) => {
  const row = GENERATIONS[generation as keyof typeof GENERATIONS];
  expect(row.bootDiskType).toBe(disk);
  for (const machineType of Object.keys(row.machines) as Array<(typeof TPU_MACHINE_TYPES)[number]>) {
    for (const topology of supportedTopologies(machineType).slice(0, 3)) expect(tpuSlice(machineType, topology).bootDiskType).toBe(disk);
  }
});

test('every row of the table is covered by the boot-disk cases', () => {
  expect(Object.keys(GENERATIONS).sort()).toEqual(['tpu7x', 'v5e', 'v5p', 'v6e']);
});

describe('TPU table: one row per generation, everything per slice derived', () => {
  test.each([
    // machine type, topology, chips, VMs, multi-host, accelerator type, accelerator label, Pathways instance type, HBM GiB
    ['ct6e-standard-1t', '1x1', 1, 1, false, 'v6e-1', 'tpu-v6e-slice', 'tpuv6e:1x1', 32],
    ['ct6e-standard-4t', '2x2', 4, 1, false, 'v6e-4', 'tpu-v6e-slice', 'tpuv6e:2x2', 128],
    ['ct6e-standard-4t', '2x4', 8, 2, true, 'v6e-8', 'tpu-v6e-slice', 'tpuv6e:2x4', 256],
    ['ct6e-standard-4t', '4x4', 16, 4, true, 'v6e-16', 'tpu-v6e-slice', 'tpuv6e:4x4', 512],
    ['ct6e-standard-4t', '4x8', 32, 8, true, 'v6e-32', 'tpu-v6e-slice', 'tpuv6e:4x8', 1024],
    ['ct6e-standard-4t', '8x8', 64, 16, true, 'v6e-64', 'tpu-v6e-slice', 'tpuv6e:8x8', 2048],
    ['ct6e-standard-4t', '16x16', 256, 64, true, 'v6e-256', 'tpu-v6e-slice', 'tpuv6e:16x16', 8192],
    ['ct6e-standard-8t', '2x4', 8, 1, false, 'v6e-8', 'tpu-v6e-slice', 'tpuv6e:2x4', 256],
    ['ct5lp-hightpu-1t', '1x1', 1, 1, false, 'v5litepod-1', 'tpu-v5-lite-podslice', 'tpuv5e:1x1', 16],
    ['ct5lp-hightpu-4t', '2x2', 4, 1, false, 'v5litepod-4', 'tpu-v5-lite-podslice', 'tpuv5e:2x2', 64],
    ['ct5lp-hightpu-4t', '4x8', 32, 8, true, 'v5litepod-32', 'tpu-v5-lite-podslice', 'tpuv5e:4x8', 512],
    ['ct5lp-hightpu-8t', '2x4', 8, 1, false, 'v5litepod-8', 'tpu-v5-lite-podslice', 'tpuv5e:2x4', 128],
    // v5p and Ironwood count TensorCores (2 per chip) in the accelerator type.
    ['ct5p-hightpu-4t', '2x2x1', 4, 1, false, 'v5p-8', 'tpu-v5p-slice', 'tpuv5:2x2x1', 384],
    ['ct5p-hightpu-4t', '2x2x2', 8, 2, true, 'v5p-16', 'tpu-v5p-slice', 'tpuv5:2x2x2', 768],
    ['ct5p-hightpu-4t', '4x4x4', 64, 16, true, 'v5p-128', 'tpu-v5p-slice', 'tpuv5:4x4x4', 6144],
    ['tpu7x-standard-4t', '2x2x1', 4, 1, false, 'tpu7x-8', 'tpu7x', 'tpu7x:2x2x1', 768],
    ['tpu7x-standard-4t', '2x2x2', 8, 2, true, 'tpu7x-16', 'tpu7x', 'tpu7x:2x2x2', 1536],
  ])(
    '%s %s: %i chips on %i VMs (multi-host %s), %s, label %s, Pathways %s, %i GiB HBM',
    (machineType, topology, chips, vms, multiHost, acceleratorType, label, pathways, hbmGib) => {
      const slice = tpuSlice(machineType, topology);
      expect(slice).toMatchObject({ chips, vms, multiHost, acceleratorType, acceleratorLabel: label, pathwaysInstanceType: pathways, hbmGib });
      expect(slice.chipsPerVm * slice.vms).toBe(chips);
      expect(slice.nodeSelector).toEqual({ 'cloud.google.com/gke-tpu-accelerator': label, 'cloud.google.com/gke-tpu-topology': topology });
      expect(slice.podResources).toEqual({ 'google.com/tpu': String(slice.chipsPerVm) });
    },
  );

  test('host vCPUs and memory scale with the VMs of the slice (Kueue TPU flavor quota)', () => {
    expect(tpuSlice('ct6e-standard-4t', '4x8')).toMatchObject({ hostVcpus: 180 * 8, hostMemoryGib: 720 * 8 });
    expect(tpuSlice('ct5p-hightpu-4t', '2x2x2')).toMatchObject({ hostVcpus: 208 * 2, hostMemoryGib: 448 * 2 });
    expect(tpuSlice('tpu7x-standard-4t', '2x2x2')).toMatchObject({ hostVcpus: 224 * 2, hostMemoryGib: 960 * 2 });
  });

  test("HBM per chip per generation (Cloud TPU docs; v5p: the page's 95 rounds down XLA's 95.74): v5e 16, v5p 96, v6e 32, tpu7x 192 GiB", () => {
    expect(Object.fromEntries(Object.entries(GENERATIONS).map(([g, row]) => [g, row.hbmGibPerChip]))).toEqual({
      v5e: 16,
      v5p: 96,
      v6e: 32,
      tpu7x: 192,
    });
  });

  test.each(Object.entries(GENERATIONS))('table invariant, %s: 0 < usable HBM <= nominal HBM per chip, and the usable figure names its source', (_g, row) => {
    expect(row.usableHbmGibPerChip).toBeGreaterThan(0);
    expect(row.usableHbmGibPerChip).toBeLessThanOrEqual(row.hbmGibPerChip);
    expect(row.usableHbmSource).toContain(String(row.usableHbmGibPerChip / (row.tensorcoresPerChip === 2 && row.usableHbmSource.includes('per TensorCore') ? 2 : 1)));
  });

  test('acceleratorTypeExamples: one per generation of the table (its largest single-VM slice), each one the table accepts', () => {
    expect(acceleratorTypeExamples()).toBe('v5litepod-8, v5p-8, v6e-8 or tpu7x-8');
    const names = acceleratorTypeExamples().split(/, | or /);
    expect(names).toHaveLength(Object.keys(GENERATIONS).length);
    for (const name of names) expect(slicesForAcceleratorType(name)[0]).toMatchObject({ vms: 1 });
  });

  test('every machine type of the table is accepted; the generation is derived from it', () => {
    expect(TPU_MACHINE_TYPES).toEqual([
      'ct5lp-hightpu-1t',
      'ct5lp-hightpu-4t',
      'ct5lp-hightpu-8t',
      'ct5p-hightpu-4t',
      'ct6e-standard-1t',
      'ct6e-standard-4t',
      'ct6e-standard-8t',
      'tpu7x-standard-4t',
    ]);
    expect(TPU_MACHINE_TYPES.map(generationOf)).toEqual(['v5e', 'v5e', 'v5e', 'v5p', 'v6e', 'v6e', 'v6e', 'tpu7x']);
    expect(isTpuMachineType('n4-highmem-64')).toBe(false);
    expect(supportedTopologies('ct6e-standard-1t')).toEqual(['1x1']);
  });

  test('ct6e-standard-4t accepts 2x2 (one 4-chip VM), as GKE and xpk do', () => {
    expect(supportedTopologies('ct6e-standard-4t')).toEqual(['2x2', '2x4', '4x4', '4x8', '8x8', '8x16', '16x16']);
    expect(tpuSlice('ct6e-standard-4t', '2x2')).toMatchObject({ vms: 1, multiHost: false, chipsPerVm: 4 });
  });

  test('3-D topologies follow xpk generate_tpu_topologies(max_cubes): the four small shapes, then cubes of 4', () => {
    const v5p = cubeTopologies(140);
    expect(v5p.slice(0, 5)).toEqual(['2x2x1', '2x2x2', '2x2x4', '2x4x4', '4x4x4']);
    expect(v5p).toContain('16x16x24'); // (4*4*6) = 96 cubes <= 140
    expect(v5p).not.toContain('16x16x40'); // 160 cubes > 140
    expect(v5p).not.toContain('8x4x4'); // not non-decreasing
    expect(supportedTopologies('tpu7x-standard-4t')).toEqual(cubeTopologies(144));
  });

  test('3-D topologies: the bounded loops give exactly xpk\'s whole-grid enumeration, in its order', () => {
    // xpk generate_tpu_topologies as written: every A <= B <= C multiple of 4 up to 256, kept when the cubes fit.
    const grid = (maxCubes: number) => {
      const out = ['2x2x1', '2x2x2', '2x2x4', '2x4x4'];
      for (let x = 4; x <= 256; x += 4) for (let y = x; y <= 256; y += 4) for (let z = y; z <= 256; z += 4) if ((x / 4) * (y / 4) * (z / 4) <= maxCubes) out.push(`${x}x${y}x${z}`);
      return out;
    };
    for (const maxCubes of [0, 1, 7, 8, 140, 144, 4096, 300000]) expect([maxCubes, cubeTopologies(maxCubes)]).toEqual([maxCubes, grid(maxCubes)]);
  });

  test('shape names: the existing v6e pool names stay (Terraform addresses); 3-D shapes carry their topology', () => {
    expect(sliceShapeName(tpuSlice('ct6e-standard-4t', '4x8'))).toBe('v6e-32');
    expect(sliceShapeName(tpuSlice('ct6e-standard-8t', '2x4'))).toBe('v6e-8-8t');
    expect(sliceShapeName(tpuSlice('ct6e-standard-4t', '2x4'))).toBe('v6e-8');
    expect(sliceShapeName(tpuSlice('ct6e-standard-1t', '1x1'))).toBe('v6e-1-1t');
    expect(sliceShapeName(tpuSlice('ct5lp-hightpu-8t', '2x4'))).toBe('v5litepod-8-8t');
    expect(sliceShapeName(tpuSlice('ct5p-hightpu-4t', '2x2x2'))).toBe('v5p-2x2x2');
    // Same chip count, different shapes: distinct names.
    expect(sliceShapeName(tpuSlice('ct5p-hightpu-4t', '4x4x16'))).not.toBe(sliceShapeName(tpuSlice('ct5p-hightpu-4t', '4x8x8')));
  });

  test('every slice of every machine type has a distinct shape name', () => {
    const names = TPU_MACHINE_TYPES.flatMap((m) => supportedTopologies(m).map((t) => sliceShapeName(tpuSlice(m, t))));
    expect(new Set(names).size).toBe(names.length);
  });

  test('only tpu7x multi-host slices need a workload policy', () => {
    expect(tpuSlice('tpu7x-standard-4t', '2x2x2').requiresWorkloadPolicy).toBe(true);
    expect(tpuSlice('tpu7x-standard-4t', '2x2x1').requiresWorkloadPolicy).toBe(false);
    expect(tpuSlice('ct5p-hightpu-4t', '2x2x2').requiresWorkloadPolicy).toBe(false);
  });

  test('an accelerator type (TPU_TYPE) reads back to its slices, fewest VMs first', () => {
    expect(slicesForAcceleratorType('v6e-32').map((s) => [s.machineType, s.topology])).toEqual([['ct6e-standard-4t', '4x8']]);
    expect(slicesForAcceleratorType('v6e-8').map((s) => [s.machineType, s.topology])).toEqual([
      ['ct6e-standard-8t', '2x4'],
      ['ct6e-standard-4t', '2x4'],
    ]);
    expect(slicesForAcceleratorType('v5p-16').map((s) => s.topology)).toEqual(['2x2x2']);
    expect(slicesForAcceleratorType('v7-8')).toEqual([]);
  });

  test('rejects a topology the machine type does not support, listing the allowed ones', () => {
    expect(() => tpuSlice('ct6e-standard-4t', '4x9')).toThrow(
      "topology must be one of 2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16 for ct6e-standard-4t, got '4x9'",
    );
    expect(() => tpuSlice('ct6e-standard-8t', '4x8', 'TOPOLOGY (env)')).toThrow(
      "TOPOLOGY (env) must be one of 2x4 for ct6e-standard-8t, got '4x8'",
    );
    // Long 3-D lists are described by their rule, not printed.
    expect(() => tpuSlice('ct5p-hightpu-4t', '4x8')).toThrow(
      `topology must be one of ${describeTopologies('ct5p-hightpu-4t')} for ct5p-hightpu-4t, got '4x8'`,
    );
    expect(describeTopologies('ct5p-hightpu-4t')).toContain('multiples of 4');
  });

  test('rejects a machine type the table does not have, listing the ones it has', () => {
    expect(() => tpuSlice('ct4p-hightpu-4t', '2x2x1')).toThrow(
      "machine type must be one of ct5lp-hightpu-1t, ct5lp-hightpu-4t, ct5lp-hightpu-8t, ct5p-hightpu-4t, ct6e-standard-1t, ct6e-standard-4t, ct6e-standard-8t, tpu7x-standard-4t, got 'ct4p-hightpu-4t'",
    );
  });
});

describe('GKE version floor per generation (the TPU table)', () => {
  const { clusterVersionFloor } = require('../../jobs/tpu');
  test('the highest floor of the generations in use, compared by number; none without a floor', () => {
    expect(clusterVersionFloor(['v6e', 'tpu7x'])).toEqual({ version: '1.34.0-gke.2201000', source: expect.stringContaining('1.34.0-gke.2201000') });
    expect(clusterVersionFloor(['v6e', 'v5e'])).toBeUndefined();
    expect(clusterVersionFloor([])).toBeUndefined();
  });
});
