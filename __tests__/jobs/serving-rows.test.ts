/**
 * Every model-table row against the pinned serving image (jobs/vllm.ts VLLM_IMAGES; jobs/models.ts SERVING): the
 * config.json its export carries (MaxText maxtext-v0.2.4 to_huggingface: HF_MODEL_CONFIGS' architectures, a Gemma's
 * vision_config kept though its vision weights are dropped) after the `vllm serve` arguments the pipeline adds, is an
 * architecture the image's registry builds (tpu-inference 11250b4 model_loader.py _MODEL_REGISTRY; the vLLM classes of
 * _VLLM_PREFERRED_ARCHITECTURES through torchax), or the row is marked unservable and eval and serve refuse it.
 */
import { MODELS, SERVING } from '../../jobs/models';
import { imageLoads, VLLM_IMAGE_ROW } from '../../jobs/vllm';

/** The export's config.json as to_huggingface writes it (the keys the image's loader reads to pick a class). */
function exportConfig(key: string): Record<string, unknown> {
  const row = SERVING[key];
  const multimodal = row.exportArchitecture.endsWith('ForConditionalGeneration');
  return { architectures: [row.exportArchitecture], ...(multimodal ? { text_config: {}, vision_config: {} } : {}) };
}

/** What `--hf-overrides <json>` among the serve arguments does to the config (vLLM: replaces those keys). */
function served(key: string): Record<string, unknown> {
  const args = SERVING[key].vllmArgs ?? [];
  const i = args.indexOf('--hf-overrides');
  return { ...exportConfig(key), ...(i >= 0 ? JSON.parse(args[i + 1]) : {}) };
}

test('every row of the model table has a serveability row, and nothing else does', () => {
  expect(Object.keys(SERVING).sort()).toEqual(Object.keys(MODELS).sort());
});

test('the export architecture is the one the row converts (hfArchitectures), as to_huggingface writes it', () => {
  for (const key of Object.keys(MODELS)) expect(MODELS[key].hfArchitectures).toContain(SERVING[key].exportArchitecture);
});

test('a torchax-preferred architecture is one the image builds from vLLM (Qwen3MoeForCausalLM)', () => {
  for (const arch of VLLM_IMAGE_ROW.vllmPreferred.filter((a) => Object.values(SERVING).some((r) => r.servedArchitecture === a))) {
    expect(VLLM_IMAGE_ROW.vllmFallback).toContain(arch);
  }
});

describe.each(Object.keys(MODELS))('%s', (key) => {
  const row = SERVING[key];
  if (row.unservable) {
    test(`unservable on ${VLLM_IMAGE_ROW.tag}: its export declares a multimodal class without the weights`, () => {
      expect(exportConfig(key)).toHaveProperty('vision_config');
      expect(VLLM_IMAGE_ROW.jaxArchitectures).not.toContain(row.servedArchitecture);
      expect(row.unservable).toMatch(/no vision weights/);
    });
  } else {
    test(`served as ${row.servedArchitecture}, which ${VLLM_IMAGE_ROW.tag} registers`, () => {
      const config = served(key);
      expect((config.architectures as string[])[0]).toBe(row.servedArchitecture);
      expect(imageLoads(VLLM_IMAGE_ROW, row.servedArchitecture)).toBe(true);
      // A text-only class: the image builds no vision tower, and prompt log-probabilities are allowed (tpu_runner.py
      // raises for multimodal models only).
      expect(row.servedArchitecture).toMatch(/ForCausalLM$/);
    });
  }
});
