import { PATHWAYS_IMAGES } from '../../jobs/jobset';
import { imageTag } from './image-unpinned';
import { finding, Rule } from './types';

/** The images the project runs on `latest` on purpose (jobs/jobset.ts PATHWAYS_IMAGES). */
const ON_PURPOSE: ReadonlySet<string> = new Set(Object.values(PATHWAYS_IMAGES));

/**
 * An image on the moving `latest` tag. A warning, not an error: `latest` exists and is what upstream runs for the
 * Pathways images (gcluster, xpk and MaxText's own Pathways CI; jobs/jobset.ts PATHWAYS_IMAGES), which have no tag
 * that can be shown to match the workload's JAX. Those on-purpose uses are one note for the whole review, so the
 * first screen shows what the change does; any other image on `latest` is a warning of its own.
 */
export const imageLatest: Rule = {
  id: 'image-latest',
  summary: 'a JobSet container image uses the latest tag (the Pathways images, latest on purpose, as one note)',
  check: ({ models }) => {
    const uses = models.flatMap((m) => m.jobsets).flatMap((j) => j.images.filter(({ image }) => imageTag(image) === 'latest').map((i) => ({ j, ...i })));
    const own = uses.filter((u) => !ON_PURPOSE.has(u.image));
    const pathways = uses.filter((u) => ON_PURPOSE.has(u.image));
    const jobsets = [...new Set(pathways.map((u) => u.j.name))];
    return [
      ...own.map(({ j, image, container }) =>
        finding('image-latest', 'warning', j,
          `JobSet ${j.name} container ${container} uses ${image} (the latest tag): a re-run or a node replacement pulls a different image`,
          'pin a digest you have checked (gcloud artifacts docker images describe <image>:latest) as @sha256:..., or a version tag that exists'),
      ),
      ...(pathways.length
        ? [finding('image-latest', 'note', { stack: [...new Set(pathways.map((u) => u.j.stack))].join(', '), address: `${jobsets.length} JobSet(s)` },
            `the Pathways images (${[...new Set(pathways.map((u) => u.image.replace(/^.*\//, '')))].join(', ')}) run on the latest tag on purpose, as upstream runs them: ${pathways.length} container(s) in ${jobsets.join(', ')}`,
            'nothing to do; to freeze them, pin digests (@sha256:...) in jobs/jobset.ts PATHWAYS_IMAGES')]
        : []),
    ];
  },
};
