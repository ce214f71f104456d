/**
 * Images are pinned by tag until issue 34 gives a registry to resolve digests: the rehearsal facts, the record and the
 * `rehearsal` output say what the key compares (jobs/rehearsal.ts imagesPinnedBy, rehearsalVerdictTexts).
 */
import { imagesPinnedBy, rehearsalVerdictTexts } from '../../jobs/rehearsal';

const TAG = 'us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training:0.2.4';
const DIGEST = `us-docker.pkg.dev/cloud-tpu-images/maxtext-images/tpu_post_training@sha256:${'a'.repeat(64)}`;
const proof = { pipeline: 'rl-qwen3', key: '0123456789ab', command: 'npm run deploy -- rehearse-rl-qwen3' };

test('tag unless every image names a digest', () => {
  expect(imagesPinnedBy([TAG])).toBe('tag');
  expect(imagesPinnedBy([DIGEST, TAG])).toBe('tag');
  expect(imagesPinnedBy([])).toBe('tag');
  expect(imagesPinnedBy([DIGEST])).toBe('digest');
});

test('by tag: passed and stale say tags, and that a moved tag is not detected', () => {
  const t = rehearsalVerdictTexts({ ...proof, imagesPinnedBy: 'tag' });
  expect(t.passed).toBe('passed (key 0123456789ab): a rehearsal of rl-qwen3 passed for exactly this combination (the same image tags, model, method, revision, dataset and files; a tag moved since is not detected)');
  expect(t.stale).toContain('(another image tag, model, revision, method or file)');
  expect(t.none).toBe('none: no passing rehearsal of rl-qwen3 for this combination (key 0123456789ab); run `npm run deploy -- rehearse-rl-qwen3`');
});

test('by digest: the texts say digests and make no claim about tags', () => {
  const t = rehearsalVerdictTexts({ ...proof, imagesPinnedBy: 'digest' });
  expect(t.passed).toContain('(the same image digests, model, method, revision, dataset and files)');
  expect(t.passed).not.toContain('tag');
  expect(t.stale).toContain('another image digest');
});
