import { attributeChanges, diffSyntheses } from '../../review/diff';
import { synthesisFromJson } from '../../review/load';
import { asTf, IMAGE, infraJson, pipelineJson } from './fixtures';

test('a topology change reads in slice terms', () => {
  // GIVEN the base infra and a head that shrinks the 4x8 slice to 4x4
  const head = infraJson();
  head.resource.google_container_node_pool['tpu-32'].placement_policy.tpu_topology = '4x4';
  head.resource.google_container_node_pool['tpu-32'].node_count = 4;
  // WHEN diffed
  const [infra] = diffSyntheses(synthesisFromJson({ infra: asTf(infraJson()) }), synthesisFromJson({ infra: asTf(head) }));
  // THEN one changed resource, in the reviewer's words, with the raw attributes underneath
  expect(infra).toMatchObject({ stack: 'infra', status: 'changed' });
  expect(infra!.resources).toHaveLength(1);
  expect(infra!.resources[0]).toMatchObject({ address: 'google_container_node_pool.tpu-32', action: 'changed' });
  expect(infra!.resources[0]!.summary).toEqual([
    'TPU pool tpu-v6e-32-0: topology 4x8 -> 4x4, chips 32 -> 16, hosts 8 -> 4, node count 8 -> 4 (Terraform replaces the pool: placement_policy cannot change in place)',
  ]);
  expect(infra!.resources[0]!.attributes).toEqual([
    { path: 'node_count', before: '8', after: '4' },
    { path: 'placement_policy.tpu_topology', before: '"4x8"', after: '"4x4"' },
  ]);
});

test('added and removed pools, IAM grants and JobSets are named in domain terms', () => {
  const base = { infra: asTf(infraJson()), 'rl-qwen3': asTf(pipelineJson()) };
  const infra = infraJson();
  delete infra.resource.google_container_node_pool['tpu-8'];
  infra.resource.google_container_node_pool['tpu-16'] = {
    ...infra.resource.google_container_node_pool['tpu-32'],
    name: 'tpu-v6e-16-0',
    node_count: 4,
    placement_policy: { type: 'COMPACT', tpu_topology: '4x4' },
  };
  infra.resource.google_project_iam_member['wl-admin'] = { project: 'proj', role: 'roles/storage.admin', member: 'serviceAccount:${google_service_account.wl-sa.email}' };
  const pipeline = pipelineJson();
  pipeline.resource.kubernetes_manifest.train.timeouts.create = '12h';
  pipeline.resource.kubernetes_manifest.train.manifest.spec.replicatedJobs[0].template.spec.template.spec.containers[0].image = IMAGE.replace('2025.10.01', '2025.11.01');
  const diffs = diffSyntheses(synthesisFromJson(base), synthesisFromJson({ infra: asTf(infra), 'rl-qwen3': asTf(pipeline) }));
  const lines = diffs.flatMap((d) => d.resources.flatMap((r) => r.summary));
  expect(lines).toEqual(expect.arrayContaining([
    'TPU pool tpu-v6e-16-0 added: ct6e-standard-4t 4x4, 16 chips, 4 hosts, reservation tpu-v6e-32-0-reservation',
    'TPU pool tpu-v6e-8-8t-0 removed: ct6e-standard-8t 2x4, 8 chips, 1 hosts, reservation tpu-v6e-8-8t-0-reservation',
    'IAM grant added: serviceAccount:tpu-post-train-gke-wl-sa@proj.iam.gserviceaccount.com roles/storage.admin on project proj',
  ]));
  expect(lines.find((l) => l.startsWith('JobSet qwen3-8b-train'))).toBe(
    `JobSet qwen3-8b-train: images ${IMAGE} -> ${IMAGE.replace('2025.10.01', '2025.11.01')}, timeout 24h -> 12h`,
  );
});

test('a new stack and an unchanged stack are reported as such', () => {
  const diffs = diffSyntheses(synthesisFromJson({ infra: asTf(infraJson()) }), synthesisFromJson({ infra: asTf(infraJson()), 'rl-qwen3': asTf(pipelineJson()) }));
  expect(diffs.map((d) => [d.stack, d.status])).toEqual([['infra', 'unchanged'], ['rl-qwen3', 'added']]);
  expect(diffs[1]!.resources.flatMap((r) => r.summary)).toContain(`JobSet qwen3-8b-to-maxtext (conversion) added: CPU, ${IMAGE}`);
});

test('a construct id change that keeps the pool name is flagged as destroy + recreate', () => {
  const head = infraJson();
  head.resource.google_container_node_pool['tpu-32-renamed'] = head.resource.google_container_node_pool['tpu-32'];
  delete head.resource.google_container_node_pool['tpu-32'];
  const [infra] = diffSyntheses(synthesisFromJson({ infra: asTf(infraJson()) }), synthesisFromJson({ infra: asTf(head) }));
  expect(infra!.renamed).toEqual([{ from: 'google_container_node_pool.tpu-32', to: 'google_container_node_pool.tpu-32-renamed', name: 'tpu-v6e-32-0' }]);
});

test('cdktf metadata does not count as a change', () => {
  expect(attributeChanges({ a: 1, '//': { metadata: { path: 'x' } } }, { a: 1, '//': { metadata: { path: 'y' } } })).toEqual([]);
});

test('a Kueue quota change reads as the quota', () => {
  const head = infraJson();
  const values = JSON.parse(head.resource.helm_release.queues.values[0]);
  values.objects[0].spec.resourceGroups[0].flavors[0].resources[0].nominalQuota = 32;
  head.resource.helm_release.queues.values = [JSON.stringify(values)];
  head.resource.helm_release.jobset.version = '0.11.0';
  const [infra] = diffSyntheses(synthesisFromJson({ infra: asTf(infraJson()) }), synthesisFromJson({ infra: asTf(head) }));
  expect(infra!.resources.flatMap((r) => r.summary)).toEqual([
    'Helm release jobset: chart jobset@0.10.1 -> jobset@0.11.0',
    'Helm release kueue-queues: Kueue TPU quota 40 -> 32',
  ]);
});

test('a changed step spec reads as the replacement of that step and every later one, with the chips it re-runs on', () => {
  // GIVEN the real rl-qwen3 stack, and a head whose conversion step changed (so its chained spec hash, and every later one)
  const { buildApp } = require('../../stacks/app');
  const { loadDeployment } = require('../../config/deployment');
  const { Testing } = require('cdktf');
  const synth = (env: Record<string, string>) => {
    const app = buildApp(loadDeployment({ env: { PIPELINES: 'rl-qwen3', ...env } }), { outdir: Testing.app().outdir });
    return JSON.parse(Testing.synth(app.node.findChild('rl-qwen3')));
  };
  const base = synth({});
  const head = synth({ CLOUD_IMAGE_NAME: 'us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.5' });
  // WHEN diffed
  const [stack] = diffSyntheses(synthesisFromJson({ 'rl-qwen3': base }), synthesisFromJson({ 'rl-qwen3': head }));
  const lines = stack!.resources.flatMap((r) => r.summary);
  // THEN the steps come in pipeline order; the training step's replacement is spelled out with its 32 chips and its
  // wait, and the conversion converts again into a new directory (another image is another MaxText writing it)
  const replaced = lines.filter((l) => l.includes('will be REPLACED'));
  expect(replaced).toEqual([
    expect.stringMatching(
      /^JobSet rl-qwen3-r1-to-maxtext will be REPLACED \(its spec or an earlier step changed\): re-runs conversion into gs:\/\/[\w-]+\/qwen3-30b-a3b\/max-text-format\/[0-9a-f]{12}\/$/,
    ),
    // each later step says where it now writes: a new run name, a new export directory (never the old export)
    expect.stringMatching(/^JobSet rl-qwen3-r1-train will be REPLACED \(its spec or an earlier step changed\): re-runs training on 32 chips \(up to 38h57m\) \(.*run_name: rl-[0-9a-f]{12} -> rl-[0-9a-f]{12}\)$/),
    expect.stringMatching(/^JobSet rl-qwen3-r1-to-hf will be REPLACED \(its spec or an earlier step changed\): re-runs export \(base_output_directory: \S+\/hf-trained\/\S+ -> \S+\/hf-trained\/\S+;/),
  ]);
  // The stack's record for status (jobs/record.ts) carries the images and spec hashes too: it changes in place; the
  // steps are all inside the one Workflow, whose new name (the spec hash) replaces it.
  expect(stack!.resources.map((r) => r.address.split('.')[1]!.split('_')[0])).toEqual(['record', 'workflow']);
  expect(stack!.resources[0]).toMatchObject({ action: 'changed', summary: ['kubernetes_manifest.record: manifest.data.record.json'] });
});

test('a changed conversion argument re-runs conversion into a new directory, shown as key: old -> new', () => {
  const { buildApp } = require('../../stacks/app');
  const { loadDeployment } = require('../../config/deployment');
  const { Testing } = require('cdktf');
  const fs = require('fs');
  const os = require('os');
  const path = require('path');
  const synth = (overrides?: Record<string, unknown>) => {
    const example = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'config', 'example.json'), 'utf8'));
    if (overrides) example.pipelines['rl-qwen3'].overrides = overrides;
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'review-config-')), 'config.json');
    fs.writeFileSync(file, JSON.stringify(example));
    const app = buildApp(loadDeployment({ env: { PIPELINES: 'rl-qwen3' }, file }), { outdir: Testing.app().outdir });
    return JSON.parse(Testing.synth(app.node.findChild('rl-qwen3')));
  };
  const [stack] = diffSyntheses(synthesisFromJson({ 'rl-qwen3': synth() }), synthesisFromJson({ 'rl-qwen3': synth({ scan_layers: false, train_micro_batch_size: 4 }) }));
  const lines = stack!.resources.flatMap((r) => r.summary);
  const conversion = lines.find((l) => l.startsWith('JobSet rl-qwen3-r1-to-maxtext will be REPLACED'))!;
  expect(conversion).toMatch(/: re-runs conversion into gs:\/\/\S+\/max-text-format\/[0-9a-f]{12}\/ \(conversion arguments changed: scan_layers: True -> False\)$/);
  // the JobSet lines show each changed key, not a cut-off command
  expect(lines.find((l) => l.startsWith('JobSet rl-qwen3-r1-to-hf will be REPLACED'))).toMatch(/scan_layers: True -> False/);
  expect(lines.find((l) => l.startsWith('JobSet rl-qwen3-r1-train will be REPLACED'))).toMatch(/train_micro_batch_size: 8 -> 4/);
});
