/**
 * `npm run status -- --lineage` (issue 32 item 5): each completed step's run record is read from the bucket (a fake
 * Cloud Storage JSON API on loopback, a stand-in gcloud) and the commits it downloaded are shown under the step, and in
 * `--json` as `commits`; a record that cannot be read is one note. Without `--lineage` the bucket is not read.
 */
import * as path from 'path';
import { emptyWorld, iso, jobSet, pipeline, runCli, World } from '../../bench/fake-kube-api';
import { commitsOf } from '../../status/run-record';
import { fake, kubeconfig, removeAfter, useFakeApis } from './fake-api-harness';
import { useCliHost } from './cli-host';
import { startFakeGcs } from '../environments/fake-gcs';
import { standInGcloud } from '../stand-ins';

useFakeApis();
useCliHost();

const qwen = pipeline('rl-qwen3');
const A = 'a'.repeat(40);
const T = 'c'.repeat(40);
const completed = { terminalState: 'Completed', conditions: [{ type: 'Completed', status: 'True', reason: 'AllJobsCompleted', message: 'done', lastTransitionTime: iso(0) }] };

/** Every step but eval completed. */
function world(): World {
  const w = emptyWorld();
  for (const s of qwen.steps.filter((x) => x.name !== 'eval')) w.jobSets.push(jobSet(s, completed));
  return w;
}

async function status(args: string[], gcsUrl: string) {
  const { bin } = standInGcloud();
  removeAfter(bin);
  const api = await fake(world());
  return runCli(['status', 'rl-qwen3', ...args], { ...kubeconfig(api.url), PATH: `${bin}${path.delimiter}${process.env.PATH}`, STORAGE_EMULATOR_HOST: gcsUrl });
}

const recordOf = (step: 'to-maxtext' | 'train' | 'to-hf') => qwen.runRecords[step].path;
const repo = 'Qwen/Qwen3-30B-A3B-Instruct-2507';

test('the commits each completed step downloaded, from its run record', async () => {
  const gcs = await startFakeGcs({ token: 'gcloud-token', objects: {
    [recordOf('to-maxtext')]: JSON.stringify({ hfRepo: repo, hfRevisionDownloaded: A }),
    [recordOf('train')]: JSON.stringify({ hfRepo: repo, hfRevisionDownloaded: A, tokenizer: repo, tokenizerRevisionDownloaded: A }),
  } });
  try {
    const text = await status(['--lineage'], gcs.url);
    if (!text.stdout.includes('downloaded')) throw new Error(text.stdout + text.stderr);
    expect(text.stdout).toContain(`downloaded ${repo}@${A} (weights)\n`);
    expect(text.stdout).toContain(`downloaded ${repo}@${A} (weights), ${repo}@${A} (tokenizer, chat template)`);
    // The export's record is missing: one note naming it, the rest shown.
    expect(text.stderr).toBe(`note: rl-qwen3 to-hf: run record ${recordOf('to-hf')} not read (not found): the commits it downloaded are not shown\n`);
    const json = JSON.parse((await status(['--lineage', '--json'], gcs.url)).stdout);
    expect(json.pipelines[0].steps[1].commits).toEqual({ weights: `${repo}@${A}`, tokenizer: `${repo}@${A}` });
  } finally {
    await gcs.close();
  }
});

test('the eval step\'s record: the base model served, the tokenizer and its own task\'s dataset at the commits it read', async () => {
  const D = 'd'.repeat(40);
  const evalRecord = qwen.runRecords.eval.path;
  expect(evalRecord).toBe(`${qwen.paths.hfExportDir}eval.run-record.json`);
  const gcs = await startFakeGcs({ token: 'gcloud-token', objects: {
    [evalRecord]: JSON.stringify({ ...qwen.runRecords.eval.record, hfRevisionDownloaded: A, tokenizerRevisionDownloaded: T, datasetRevisionDownloaded: D }),
  } });
  try {
    const all = world();
    all.jobSets.push(jobSet(qwen.steps.find((x) => x.name === 'eval')!, completed));
    const { bin } = standInGcloud();
    removeAfter(bin);
    const api = await fake(all);
    const env = { ...kubeconfig(api.url), PATH: `${bin}${path.delimiter}${process.env.PATH}`, STORAGE_EMULATOR_HOST: gcs.url };
    const text = await runCli(['status', 'rl-qwen3', '--lineage'], env);
    // The lineage line synthesized for the eval step, then the commits its record holds.
    expect(text.stdout).toContain(`scored ${qwen.paths.hfExportDir.replace(/^gs:\/\/[^/]+\/[^/]+\//, '')} against ${repo} (head when converted) on gsm8k_reasoning (gsm8k at the commit resolved when it ran); run record ${evalRecord}`);
    expect(text.stdout).toContain(`downloaded ${repo}@${A} (weights), ${repo}@${T} (tokenizer, chat template), openai/gsm8k@${D} (dataset)`);
    const json = JSON.parse((await runCli(['status', 'rl-qwen3', '--lineage', '--json'], env)).stdout);
    expect(json.pipelines[0].steps[3].commits).toEqual({ weights: `${repo}@${A}`, tokenizer: `${repo}@${T}`, dataset: `openai/gsm8k@${D}` });
  } finally {
    await gcs.close();
  }
});

test('without --lineage the bucket is not read', async () => {
  const gcs = await startFakeGcs({ token: 'gcloud-token', objects: {} });
  try {
    const r = await status([], gcs.url);
    expect(r.stdout).toContain('to-hf');
    expect(r.stdout).not.toContain('downloaded ');
    expect(gcs.requests).toEqual([]);
  } finally {
    await gcs.close();
  }
});

test('a record without a 40-hex commit shows nothing for it', () => {
  expect(commitsOf(JSON.stringify({ hfRepo: repo, hfRevisionDownloaded: null }))).toBeUndefined();
  expect(commitsOf('{"hfRepo": "x/y", "hfRevisionDownloaded": "main"}')).toBeUndefined();
  expect(commitsOf(JSON.stringify({ hfRepo: repo, tokenizer: 'acme/tok', tokenizerRevisionDownloaded: T }))).toEqual({ tokenizer: `acme/tok@${T}` });
  expect(commitsOf('not json')).toBeUndefined();
});
