import { finding, Rule } from './types';

/** `repo/image:tag` or `@sha256:`; the tag is after the last `/`. */
export function imageTag(image: string): string | undefined {
  if (image.includes('@')) return image.slice(image.indexOf('@') + 1);
  const last = image.slice(image.lastIndexOf('/') + 1);
  return last.includes(':') ? last.slice(last.indexOf(':') + 1) : undefined;
}

/** An image with no tag at all: whatever the registry calls latest today, with nothing saying so. */
export const imageUnpinned: Rule = {
  id: 'image-unpinned',
  summary: 'a JobSet container image has no tag',
  check: ({ models }) =>
    models.flatMap((m) => m.jobsets).flatMap((j) =>
      j.images.flatMap(({ image, container }) => {
        if (imageTag(image) !== undefined) return [];
        return [
          finding('image-unpinned', 'error', j,
            `JobSet ${j.name} container ${container} uses ${image} (no tag): a re-run or a node replacement pulls a different image`,
            'pin a version tag that exists or a digest (@sha256:...)'),
        ];
      }),
    ),
};
