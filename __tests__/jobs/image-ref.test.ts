import { artifactRegistryImage, imageReferenceProblem, parseImageReference } from '../../jobs/image-ref';

test.each([
  ['us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.4', { registry: 'us-docker.pkg.dev', tag: '0.2.4' }],
  ['ubuntu:24.04', { registry: undefined, path: 'ubuntu', tag: '24.04' }],
  [`gcr.io/p/i@sha256:${'0'.repeat(64)}`, { digest: `sha256:${'0'.repeat(64)}` }],
  ['localhost:5000/a/b:t', { registry: 'localhost:5000' }],
])('%s parses', (ref, want) => {
  expect(parseImageReference(ref)).toMatchObject(want);
});

test.each(['us-docker.pkg.dev/p/r/img', 'Upper/case:1', 'a//b:1', 'img:', 'img@sha256:abc', ' img:1', ''])('%s does not', (ref) => {
  expect(parseImageReference(ref)).toBeUndefined();
  expect(imageReferenceProblem(ref)).toMatch(/^image must be a reference such as/);
});

test('Artifact Registry coordinates, for the image-exists check', () => {
  expect(artifactRegistryImage('us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.4')).toEqual({
    location: 'us',
    project: 'cloud-tpu-images',
    repository: 'maxtext-images',
    image: 'tpu_post_training',
    tagOrDigest: '0.2.4',
  });
  expect(artifactRegistryImage('ghcr.io/a/b/c:1')).toBeUndefined();
});
