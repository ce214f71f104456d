/**
 * Tutorial 002 installs MaxText 0.2.3; rl-llama3 runs the 0.2.4 image. The difference is a recipe choice the stack
 * output, the plan review and docs/pipelines.md report, and the RL default that changed and still exists in 0.2.4 is
 * pinned to the tutorial's value (AI-Hypercomputer/maxtext src/maxtext/configs/post_train/rl.yml,
 * maxtext-v0.2.3 `debug: {rl: true}` -> maxtext-v0.2.4 `debug: false`).
 */
import * as fs from 'fs';
import * as path from 'path';
import { buildPipeline, maxtextDifference } from '../../jobs/pipeline';
import { RECIPES } from '../../jobs/recipes';
import { imageMaxTextVersion, POST_TRAINING_IMAGE_REPO, TUTORIAL_IMAGE } from '../../jobs/recipes/common';
import { extractStack } from '../../review/model';
import { review } from '../../review/findings';
import { loadPrices } from '../../jobs/prices';
import { renderReport } from '../../review/report';
import { testPlatform } from '../jobs/fixtures';
import { synthStack, WITH_SINGLE_HOST } from '../util';

/** The tutorial text, where this checkout sits next to the shared seeds (not in a fresh clone elsewhere). */
const SEEDS = path.join(__dirname, '..', '..', '..', 'shared', 'seeds');
const SEED_002 = fs.existsSync(SEEDS) ? fs.readdirSync(SEEDS).find((f) => f.startsWith('002')) : undefined;

describe('rl-llama3 runs MaxText 0.2.4 where tutorial 002 installs 0.2.3, and says so', () => {
  test('the recipe names both versions', () => {
    expect(RECIPES['rl-llama3'].tutorialMaxText?.version).toBe('0.2.3');
    expect(imageMaxTextVersion(RECIPES['rl-llama3'].image)).toBe('0.2.4');
    if (SEED_002) {
      // The tutorial text is the truth for the version it installs.
      const seed = fs.readFileSync(path.join(SEEDS, SEED_002), 'utf8');
      expect(seed).toContain(`maxtext[tpu-post-train]==${RECIPES['rl-llama3'].tutorialMaxText!.version}`);
    }
  });

  test('the other recipes run their tutorial’s image and report nothing', () => {
    for (const name of ['rl-qwen3', 'rl-gemma4', 'sft-gemma4']) {
      expect(RECIPES[name].tutorialMaxText).toBeUndefined();
      expect(buildPipeline(RECIPES[name], testPlatform(), { runId: 'r1' }).maxtextDifference).toBeUndefined();
    }
  });

  test('the pipeline, the stack output and the review pipeline section carry the difference', () => {
    const p = buildPipeline(RECIPES['rl-llama3'], testPlatform(), { runId: 'r1' });
    expect(p.maxtextDifference).toMatch(/^tutorial 002 installs MaxText 0\.2\.3; this pipeline runs MaxText 0\.2\.4 \(the image's\): /);
    const tf = synthStack('rl-llama3', WITH_SINGLE_HOST);
    expect(tf.output.tutorial_maxtext.value).toBe(maxtextDifference({ ...RECIPES['rl-llama3'], image: TUTORIAL_IMAGE }));
    const model = extractStack('rl-llama3', tf);
    expect(model.pipeline?.maxtextDifference).toBe(tf.output.tutorial_maxtext.value);
    const md = renderReport({ models: [model], findings: review([model]), prices: loadPrices(), source: 'test' });
    expect(md).toContain(`MaxText version: ${tf.output.tutorial_maxtext.value}.`);
    expect(synthStack('rl-qwen3').output.tutorial_maxtext).toBeUndefined();
  });

  test('running the tutorial’s own version (image override) removes the note; an unknown image says so', () => {
    const base = RECIPES['rl-llama3'];
    expect(maxtextDifference({ ...base, image: `${POST_TRAINING_IMAGE_REPO}:0.2.3` })).toBeUndefined();
    expect(maxtextDifference({ ...base, image: 'example.com/my-maxtext:dev' })).toContain(
      'this pipeline runs example.com/my-maxtext:dev (MaxText version not known from the tag)',
    );
  });

  test('0.2.3’s debug.rl=true is pinned as 0.2.4’s flat debug=True in the training call', () => {
    const p = buildPipeline(RECIPES['rl-llama3'], testPlatform(), { runId: 'r1' });
    const train = JSON.stringify(p.steps.find((s) => s.name === 'train')!.manifest);
    expect(train).toContain('debug=True');
    // degenerate_group_masking is gone from 0.2.4 (pyconfig refuses unknown keys): never passed.
    expect(train).not.toContain('degenerate_group_masking');
  });
});
