import { imageTag } from './image-unpinned';
import { finding, Rule } from './types';

/**
 * An image on the moving `latest` tag. A warning, not an error: `latest` exists and is what upstream runs for the
 * Pathways images (gcluster, xpk and MaxText's own Pathways CI; jobs/jobset.ts PATHWAYS_IMAGES), which have no tag
 * that can be shown to match the workload's JAX.
 */
export const imageLatest: Rule = {
  id: 'image-latest',
  summary: 'a JobSet container image uses the latest tag',
  check: ({ models }) =>
    models.flatMap((m) => m.jobsets).flatMap((j) =>
      j.images.flatMap(({ image, container }) => {
        if (imageTag(image) !== 'latest') return [];
        return [
          finding('image-latest', 'warning', j,
            `JobSet ${j.name} container ${container} uses ${image} (the latest tag): a re-run or a node replacement pulls a different image`,
            'pin a digest you have checked (gcloud artifacts docker images describe <image>:latest) as @sha256:..., or a version tag that exists'),
        ];
      }),
    ),
};
