/**
 * The verdict writer's bucket grant condition (constructs/bucket.ts verdictRecordCondition) evaluated as CEL (IAM
 * Conditions are CEL; `startsWith`/`endsWith` are CEL's standard string functions; here @bufbuild/cel 0.6.1) on the
 * object names Cloud Storage checks, `projects/_/buckets/<bucket>/objects/<object>`: every preset rehearsal's record
 * is admitted; the checkpoints, exports and eval results beside it, another bucket's record and a bucket-level name are not.
 */
import { isCelError, run } from '@bufbuild/cel';
import { verdictRecordCondition } from '../../constructs/bucket';
import { loadDeployment } from '../../config/deployment';
import { RECIPES } from '../../jobs/recipes';

const deployment = loadDeployment({ env: { SINGLE_HOST_RESERVATION: 'my-v6e-8-reservation', REHEARSE: Object.keys(RECIPES).join(',') } });
const bucket = deployment.platform.bucket;
const { expression } = verdictRecordCondition(bucket);
const objectName = (gsPath: string) => {
  const [, b, object] = /^gs:\/\/([^/]+)\/(.*)$/.exec(gsPath)!;
  return `projects/_/buckets/${b}/objects/${object}`;
};
const admits = (name: string) => {
  const r = run(expression, { resource: { name } });
  if (isCelError(r)) throw r;
  return r;
};

const rehearsals = deployment.pipelines.filter((p) => p.verdictWriter);

test.each(rehearsals.map((p) => [p.name, p.verdictWriter!.recordPath]))('%s: its record %s is writable', (_n, recordPath) => {
  expect(admits(objectName(recordPath))).toBe(true);
});

test.each(rehearsals.flatMap((p) => [p.paths.trainRunDir, `${p.paths.hfExportDir}config.json`, p.paths.maxtextCheckpoint]).map((x) => [x]))('%s is not', (gsPath) => {
  expect(admits(objectName(gsPath))).toBe(false);
});

test('another bucket\'s record and the bucket itself are not', () => {
  const record = rehearsals[0].verdictWriter!.recordPath;
  expect(admits(objectName(record.replace(`gs://${bucket}/`, 'gs://other-bucket/')))).toBe(false);
  expect(admits(`projects/_/buckets/${bucket}`)).toBe(false);
});
