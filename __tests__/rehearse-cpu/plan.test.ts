import { cpuPlan } from '../../rehearse-cpu/plan';
import type { Pipeline } from '../../jobs/pipeline';

/** A pipeline with the fields cpuPlan reads: steps whose JobSets run `bash -c <script>` in `workload-container`. */
function pipelineWith(containers: Array<Record<string, unknown>>): Pipeline {
  const step = (name: string) => ({
    name,
    runsOn: 'cpu',
    manifest: { spec: { replicatedJobs: [{ name: 'main', template: { spec: { template: { spec: { containers } } } } }] } },
  });
  return {
    model: { name: 'llama3.1-8b', hfRepo: 'meta-llama/Llama-3.1-8B-Instruct', exportName: 'x' },
    recipe: { train: { kind: 'sft', args: { hf_path: 'HuggingFaceH4/ultrachat_200k' } } },
    steps: [step('to-maxtext'), step('train')],
  } as unknown as Pipeline;
}

describe('cpuPlan', () => {
  it('takes each step script from the workload container, with its literal env and the buckets it names', () => {
    const plan = cpuPlan(
      pipelineWith([
        { name: 'sidecar', image: 'busybox', command: ['sleep', '1'] },
        {
          name: 'workload-container',
          image: 'us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.4',
          command: ['/bin/bash', '-c', 'python3 -m maxtext.x base_output_directory=gs://my-bucket/a/ && cat gs://other-bucket/b'],
          env: [{ name: 'JAX_PLATFORMS', value: 'tpu,cpu' }, { name: 'HF_TOKEN' }],
        },
      ]),
      'sft-llama3',
    );
    expect(plan.pipeline).toBe('sft-llama3');
    expect(plan.model).toEqual({ name: 'llama3.1-8b', hfRepo: 'meta-llama/Llama-3.1-8B-Instruct' });
    expect(plan.steps.map((s) => s.name)).toEqual(['to-maxtext', 'train']);
    expect(plan.steps[0].script).toBe('python3 -m maxtext.x base_output_directory=gs://my-bucket/a/ && cat gs://other-bucket/b');
    expect(plan.steps[0].env).toEqual({ JAX_PLATFORMS: 'tpu,cpu', HF_TOKEN: '' });
    expect(plan.buckets).toEqual(['my-bucket', 'other-bucket']);
  });

  it('refuses a container that does not run a bash -c script, naming it', () => {
    expect(() => cpuPlan(pipelineWith([{ name: 'workload-container', command: ['python3', 'x.py'] }]), 'p')).toThrow(
      'container workload-container runs ["python3","x.py"], not a bash -c script',
    );
  });
});
