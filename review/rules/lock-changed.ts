import type { StackDiff } from '../diff';
import { finding, Rule } from './types';

/**
 * Against `--base`, what post-training.lock.json changed in what a stack deploys (`npm run lock` rewrote it, or a hand
 * edit): an image's digest (`<tag>@sha256:...`: another image runs under the same tag), a model's or a dataset's
 * locked commit (the run records carry `"hfRepo":"<repo>","hfRevision":"<commit>"` and `"dataset":{"hf":"<repo>",...,
 * "revision":"<commit>"}`, jobs/run-record.ts). A changed digest or commit is a warning (the run computes something
 * else; its identity and paths change with it); one newly pinned, or no longer pinned, a note. Read from the changed
 * attributes of the synthesized diff, whatever the escaping of the manifests and scripts that carry them.
 */

/** `<image>:<tag>@sha256:<64 hex>`, and the tag-only reference a pin replaces. */
const PINNED = /([a-z0-9][a-z0-9._\-/:]*:[\w][\w.-]{0,127})@(sha256:[0-9a-f]{64})/g;
/** The run record's model: `"hfRepo":"<repo>","hfRevision":"<commit>"` at any escaping. */
const MODEL = /hfRepo[\\"]*:[\\"]*([\w.-]+\/[\w.-]+)[\\"]*,[\\"]*hfRevision[\\"]*:[\\"]*([0-9a-f]{40})/g;
/** The run record's dataset: `"dataset":{"hf":"<repo>",...,"revision":"<commit>"}`. */
const DATASET = /dataset[\\"]*:\{[\\"]*hf[\\"]*:[\\"]*([\w.-]+\/[\w.-]+)[^{}]*?revision[\\"]*:[\\"]*([0-9a-f]{40})/g;

type Side = Map<string, Set<string>>;

function collect(texts: readonly string[]): { images: Side; models: Side; datasets: Side } {
  const out = { images: new Map(), models: new Map(), datasets: new Map() } as { images: Side; models: Side; datasets: Side };
  const add = (side: Side, key: string, value: string) => (side.get(key) ?? side.set(key, new Set()).get(key)!).add(value);
  for (const text of texts) {
    for (const m of text.matchAll(PINNED)) add(out.images, m[1]!, m[2]!);
    for (const m of text.matchAll(MODEL)) add(out.models, m[1]!, m[2]!);
    for (const m of text.matchAll(DATASET)) add(out.datasets, m[1]!, m[2]!);
  }
  return out;
}

const one = (s: Set<string> | undefined) => (s ? [...s].sort().join(', ') : undefined);
const short = (v: string) => (v.startsWith('sha256:') ? `${v.slice(0, 19)}...` : v.slice(0, 12));

/** The findings of one changed stack. */
function stackFindings(s: StackDiff): ReturnType<Rule['check']> {
  const changes = s.resources.flatMap((r) => r.attributes.map((a) => ({ r, a })));
  const before = collect(changes.map(({ a }) => a.before ?? ''));
  const after = collect(changes.map(({ a }) => a.after ?? ''));
  const address = (key: string) => changes.find(({ a }) => (a.after ?? a.before ?? '').includes(key))?.r.address ?? s.stack;
  const out: ReturnType<Rule['check']> = [];
  const kinds = [
    ['images', 'image', 'digest'],
    ['models', 'model', 'commit'],
    ['datasets', 'dataset', 'commit'],
  ] as const;
  for (const [side, what, by] of kinds) {
    for (const key of [...new Set([...before[side].keys(), ...after[side].keys()])].sort()) {
      const was = one(before[side].get(key));
      const now = one(after[side].get(key));
      if (was === now) continue;
      const where = { stack: s.stack, address: address(key) };
      if (was && now) {
        out.push(finding('lock-changed', 'warning', where,
          `post-training.lock.json changed ${what} ${key}: ${by} ${short(was)} -> ${short(now)} (${now}): the steps run ${what === 'image' ? 'another image under the same tag' : 'another commit'}`,
          `check what changed upstream between the two ${by}s before merging (npm run lock -- --check names what moved since the lock)`));
      } else if (now) {
        out.push(finding('lock-changed', 'note', where, `${what} ${key} is now locked at ${by} ${now} (post-training.lock.json)`, 'nothing to do: the lock pins it'));
      } else {
        out.push(finding('lock-changed', 'note', where, `${what} ${key} is no longer locked (was ${by} ${was}): it is pulled by tag or resolved at run time`, 'run npm run lock, or say why it is left out of post-training.lock.json'));
      }
    }
  }
  return out;
}

/** Lock changes against `--base`, per stack: digests and commits that moved, were pinned or were dropped. */
export const lockChanged: Rule = {
  id: 'lock-changed',
  summary: 'against --base, post-training.lock.json changed an image digest or a model or dataset commit a stack deploys',
  check: ({ diffs }) => (diffs ?? []).filter((s) => s.status === 'changed').flatMap(stackFindings),
};
