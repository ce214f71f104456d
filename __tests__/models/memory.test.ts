/**
 * Memory as each system reads it. The tutorial raises the Pathways head's workload container with
 * `echo 190G > /sys/fs/cgroup/memory.max`; the kernel parses that with memparse (lib/cmdline.c: K/M/G/T are powers of
 * 2^10), while Kubernetes parses a quantity suffix G as 10^9 and Gi as 2^30 (k8s.io/apimachinery resource.Quantity).
 * The synthesized limit must give the container exactly the memory the tutorial's cgroup write gave it.
 */
import { parseBytes } from '../../jobs/quantity';
import { allConfigurations, podSets } from './synthesized';

/** The kernel's memparse: a number with an optional K/M/G/T/P/E suffix, powers of 1024. */
function memparse(s: string): number {
  const m = /^(\d+)([KMGTPE]?)$/i.exec(s)!;
  return Number(m[1]) * 1024 ** ' KMGTPE'.indexOf((m[2] || ' ').toUpperCase());
}

const TUTORIAL_000_MEMORY_MAX = '190G';

// Every configuration that deploys rl-qwen3 (the v6e-8 examples leave it out).
const withQwen3 = allConfigurations().filter(([, synth]) => synth.stacks['rl-qwen3'] !== undefined);

test.each(withQwen3)('the rl-qwen3 head workload container gets the tutorial\'s 190 GiB (%s)', (_name, synth) => {
  const train = synth.jobSets.find((j) => j.manifest.metadata.name === 'rl-qwen3-r1-train')!;
  const head = podSets(train.manifest).find((p) => p.name === 'pathways-head')!;
  const workload = head.pod.containers.find((c: any) => c.name === 'workload-container');
  expect(parseBytes(workload.resources.limits.memory)).toBe(memparse(TUTORIAL_000_MEMORY_MAX));
  expect(parseBytes(workload.resources.requests.memory)).toBe(memparse(TUTORIAL_000_MEMORY_MAX));
  // The failure this prevents: the same digits as a Kubernetes quantity are 13 GiB less.
  expect((memparse('190G') - parseBytes('190G')) / 2 ** 30).toBeCloseTo(13.05, 1);
});
