/**
 * Issue 35: the review covers the whole plan, on genuine Terraform 1.11.4 plans (fixtures/real-plans/make-moves.sh):
 * imports, moves, forgets and removed blocks are read, shown and compared like any other change; short sensitive
 * values, values Terraform copies unmarked into terraform_data's `output` and values under the key `__proto__` are
 * never printed; numbers a double does not keep compare and show as written; plan reads are bounded for files, FIFOs
 * and devices. Every CLI case asserts the exit code and that no canary reaches stdout, stderr or the report.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import MarkdownIt from 'markdown-it';
import { readBounded } from '../../util/bounded-read';
import { codeSpan, inert, stripControls } from '../../util/inert';
import { diffSyntheses } from '../../review/diff';
import { review as reviewRules } from '../../review/findings';
import { synthesisFromJson, TerraformJson } from '../../review/load';
import { asTf, infraJson, pipelineJson } from './fixtures';
import { parseJsonExact } from '../../review/json-scan';
import { reviewPlan } from '../../review/plan';
import { planDifferences } from '../../review/same-plan';
import { ExactNumber } from '../../review/values';
import { cleanUp, leaked, REAL, runCli, synthesisDir, tempDir, writeFile } from './harness';

afterEach(cleanUp);

const real = (name: string) => path.join(REAL, `${name}.json`);
const text = (name: string) => fs.readFileSync(real(name), 'utf8');
const readReal = (name: string) => parseJsonExact(text(name)) as Record<string, unknown>;
const NAMES = ['login', 'labels', 'bucket', 'secret', 'checkpoints', 'pool', 'forgotten', 'destroyed', 'ckpt_old', 'ckpt_other', 'steps', 'payload'];
/** An infra stack that declares the terraform_data resources of these plans. */
const tfDataStack = () => ({ resource: { terraform_data: Object.fromEntries(NAMES.map((n) => [n, {}])) } });
const review = (args: string[]) => runCli(args, synthesisDir({ infra: tfDataStack() }));
/** The sensitive values of short-secrets.json (old and new): none may be printed, whole or in part. */
const SHORT_CANARIES = ['48213', '59324', 'canaryPROTO', 'PROTOold', 'PROTOnew'];

describe('imports, moves, forgets and removed blocks', () => {
  const plan = () => reviewPlan('infra', 'moves.json', readReal('moves'));
  const change = (address: string) => plan().changes.find((c) => c.address === `terraform_data.${address}`);

  test('an import that changes nothing and a move that changes nothing are changes, not "No changes"', () => {
    expect(change('bucket')).toMatchObject({ action: 'no-op', importing: 'proj-post-training' });
    expect(change('bucket')!.summary[0]).toBe('imports the existing object proj-post-training into terraform_data.bucket: Terraform manages it from now on (a later destroy deletes it)');
    expect(change('checkpoints')).toMatchObject({ action: 'no-op', previousAddress: 'terraform_data.ckpt_old' });
    expect(change('pool')).toMatchObject({ action: 'update', previousAddress: 'terraform_data.pool_old' });
    expect(change('secret')).toMatchObject({ action: 'update', importing: 'hf-token' });
    expect(change('forgotten')).toMatchObject({ action: 'forget', reason: 'delete_because_no_resource_config' });
    expect(change('destroyed')).toMatchObject({ action: 'delete', reason: 'delete_because_no_resource_config' });
    expect(plan().counts).toMatchObject({ import: 2, move: 2, forget: 1, delete: 2, update: 2, 'no-op': 2 });
  });

  test('the report shows each: import, move, update + import, update + move, forget, delete', () => {
    const r = review(['--plan', `infra=${real('moves')}`]);
    expect(r.code).toBe(0);
    expect(r.report).toContain('0 to create, 2 to update, 0 to replace, 2 to delete, 1 to forget, 2 to import, 2 to move, 2 unchanged.');
    expect(r.report).toContain('| 📥 import | `terraform_data.bucket` | imports the existing object proj-post-training into terraform_data.bucket');
    expect(r.report).toContain('| ➡️ move | `terraform_data.checkpoints` | moves terraform_data.ckpt_old to terraform_data.checkpoints in state');
    expect(r.report).toContain('| 🔧 update + ➡️ move | `terraform_data.pool` | moves terraform_data.pool_old to terraform_data.pool in state (the object itself is not touched); input: "4x8" -> "4x4"');
    expect(r.report).toContain('| 🔧 update + 📥 import | `terraform_data.secret` | imports the existing object hf-token');
    expect(r.report).toContain('| forget | `terraform_data.forgotten` |');
    expect(r.report).toContain('| 🗑️ delete | `terraform_data.destroyed` |');
    expect(r.report).not.toContain('No changes');
  });

  test.each([
    ['a bucket', 'google_storage_bucket', { name: 'proj-post-training', location: 'US' }, 'imports the existing storage bucket proj-post-training into stack infra'],
    ['a secret', 'google_secret_manager_secret', { secret_id: 'hf-token' }, 'imports the existing secret manager secret proj-post-training into stack infra'],
    ['a TPU pool', 'google_container_node_pool', { name: 'tpu-v6e-32-0', node_config: [{ machine_type: 'ct6e-standard-4t' }], placement_policy: [{ type: 'COMPACT', tpu_topology: '4x8' }], node_count: 8 }, 'imports the existing TPU node pool (a slice) proj-post-training'],
  ])('the genuine import entry, retyped as %s: a warning naming what a teardown would delete', (_what, type, values, message) => {
    // The genuine no-op import of terraform_data.bucket with its type and values made those of a Google resource
    // (Terraform cannot plan a Google resource offline); `importing`, actions and the rest are as Terraform wrote them.
    const json = readReal('moves');
    const entry = (json.resource_changes as Array<Record<string, any>>).find((c) => c.address === 'terraform_data.bucket')!;
    Object.assign(entry, { address: `${type}.adopted`, type, name: 'adopted' });
    Object.assign(entry.change, { before: values, after: values });
    const findings = reviewRules([], [], [reviewPlan('infra', 'moves.json', json)]).filter((f) => f.rule === 'plan-imports');
    expect(findings.map((f) => f.rule)).toEqual(['plan-imports']);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ severity: 'warning', address: `${type}.adopted` });
    expect(findings[0]!.message).toContain(message);
    // the terraform_data imports themselves are no finding
    expect(reviewRules([], [], [reviewPlan('infra', 'moves.json', readReal('moves'))]).filter((f) => f.rule === 'plan-imports')).toEqual([]);
  });

  test('same-plan: another imported ID or another moved-from address is a different plan; the same plan is not', () => {
    expect(planDifferences(readReal('moves'), readReal('moves'))).toEqual([]);
    const differences = planDifferences(readReal('moves'), readReal('moves-other'));
    expect(differences).toEqual(expect.arrayContaining([
      expect.stringMatching(/^terraform_data\.bucket: importing(, |$)/),
      expect.stringMatching(/^terraform_data\.checkpoints: previous_address(, |$)/),
    ]));
    // the import alone (same values, another ID) and the move alone (same values, another source) still differ
    const other = readReal('moves');
    const bucket = (other.resource_changes as Array<Record<string, any>>).find((c) => c.address === 'terraform_data.bucket')!;
    bucket.change.importing = { id: 'proj-other-bucket' };
    const ckpt = (other.resource_changes as Array<Record<string, any>>).find((c) => c.address === 'terraform_data.checkpoints')!;
    ckpt.previous_address = 'terraform_data.ckpt_other';
    expect(planDifferences(readReal('moves'), other)).toEqual([
      'terraform_data.bucket: importing differ from the reviewed plan',
      'terraform_data.checkpoints: previous_address differ from the reviewed plan',
    ]);
    // an import or a move absent from the reviewed plan is named
    const noImport = readReal('moves');
    noImport.resource_changes = (noImport.resource_changes as unknown[]).filter((c) => (c as { address: string }).address !== 'terraform_data.bucket');
    expect(planDifferences(noImport, readReal('moves'))).toContain('terraform_data.bucket: ["no-op"] is not in the reviewed plan');
    const r = review(['--plan', `infra=${real('moves-other')}`, '--reviewed', `infra=${real('moves')}`]);
    expect(r.code).toBe(1);
    expect(r.report).toMatch(/terraform_data\.bucket: importing, before, after differ from the reviewed plan/);
    expect(r.all).not.toContain('proj-other-bucket: ');
  });
});

test("'plan-job': a plan job that died, and a planned stack with neither plan nor marker, are errors", () => {
  const plan = reviewPlan('infra', 'moves.json', readReal('moves'));
  const found = (ctx: Parameters<typeof reviewRules>[7]) => reviewRules([], [], [plan], undefined, undefined, ['rl-qwen3'], [], ctx).filter((f) => f.rule === 'plan-job');
  expect(found({ planJobFailed: ['synth'] }).map((f) => [f.severity, f.stack, f.message.slice(0, 31)])).toEqual([['error', '(all)', 'the plan job failed at synth be']]);
  expect(found({ expectedPlans: ['infra', 'rl-qwen3', 'serve-x'] }).map((f) => f.stack)).toEqual(['serve-x']);
  expect(found({})).toEqual([]);
});

describe('no part of a sensitive value, at any length', () => {
  test('a 5-character pin and a value under `__proto__`, also in terraform_data\'s unmarked output copy: none printed', () => {
    const r = review(['--plan', `infra=${real('short-secrets')}`]);
    expect(r.code).toBe(0);
    expect(text('short-secrets')).toContain('"pin": "48213"'); // the fixture holds them, unmarked in output
    expect(text('short-secrets')).toContain('"__proto__": "canaryPROTOold"');
    expect(leaked(r.all, SHORT_CANARIES)).toEqual([]);
    expect(r.report).toContain('output: {"pin":"(sensitive value)","port":31337} -> "(known after apply)"');
    expect(r.report).toContain('output: {"__proto__":"(sensitive value)","team":"post-training"}');
  });

  test('the pin quoted elsewhere (an error message) is redacted as a whole token, not inside a longer number', () => {
    const bad = writeFile('bad.json', text('short-secrets').replace('"format_version": "1.2"', '"format_version": "1.2", "resource_changes_x": 0').replace('"actions": [\n     "update"\n    ]', '"actions": "48213"'));
    const r = review(['--plan', `infra=${bad}`]);
    expect(r.code).toBe(2);
    expect(leaked(r.all, SHORT_CANARIES)).toEqual([]);
  });

  test('the deploy comparison of the same plan passes and names nothing secret', () => {
    const r = review(['--plan', `infra=${real('short-secrets')}`, '--reviewed', `infra=${real('short-secrets')}`]);
    expect(r.code).toBe(0);
    expect(leaked(r.all, SHORT_CANARIES)).toEqual([]);
  });
});

describe('numbers compare and show as written', () => {
  test('2^53+1 vs 2^53 and 2e309 vs 1e309 are different plans', () => {
    const a = readReal('numbers-a');
    expect((a.variables ?? {}) && JSON.stringify(a)).toContain('9007199254740993');
    expect(planDifferences(readReal('numbers-a'), readReal('numbers-b'))).toEqual(['terraform_data.steps: after differ from the reviewed plan']);
    expect(planDifferences(readReal('numbers-a'), readReal('numbers-a'))).toEqual([]);
    const r = review(['--plan', `infra=${real('numbers-a')}`, '--reviewed', `infra=${real('numbers-b')}`]);
    expect(r.code).toBe(1);
    expect(r.report).toContain('terraform_data.steps: after differ from the reviewed plan');
  });

  test('the report shows 1e309 and 2^53+1 as Terraform wrote them, never null', () => {
    const r = review(['--plan', `infra=${real('numbers-update')}`]);
    expect(r.code).toBe(0);
    expect(r.report).toContain('input.max_steps: 9007199254740992 -> 9007199254740993');
    expect(r.report).toContain(`input.budget: 1${'0'.repeat(99)}`);
    expect(r.report).not.toContain('null');
  });

  test('parseJsonExact keeps what a double cannot, and only that', () => {
    const v = parseJsonExact('{"a": 9007199254740993, "b": 31337, "c": 0.5, "d": 1.0, "e": "9007199254740993", "g": [1e400]}') as Record<string, unknown>;
    expect(v.a).toEqual(new ExactNumber('9007199254740993'));
    expect([v.b, v.c, v.e]).toEqual([31337, 0.5, '9007199254740993']);
    expect(v.d).toEqual(new ExactNumber('1.0'));
    expect(v.g).toEqual([new ExactNumber('1e400')]);
    // a string that looks like the internal marker stays a string
    expect(parseJsonExact('{"x": "\\u0000exact-abc:1", "y": 9007199254740993}')).toMatchObject({ x: '\u0000exact-abc:1' });
  });
});

describe('plan reads are bounded for files, FIFOs and devices', () => {
  test('/dev/zero: refused at the limit, naming it (exit 2), not read forever', () => {
    const r = review(['--plan', 'infra=/dev/zero', '--max-plan-mb', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/dev/zero is over the limit of 1 MiB (--max-plan-mb): refused at the first byte over');
  });

  test('a FIFO fed more than the limit: refused at the limit, naming it', async () => {
    const fifo = path.join(tempDir('fifo-'), 'plan.json');
    require('child_process').execFileSync('mkfifo', [fifo]);
    // A writer that never stops (`yes` into the FIFO), killed after the read.
    const writer = spawn('sh', ['-c', `exec yes 0 > '${fifo}'`], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200)); // the writer has opened the FIFO
      expect(() => readBounded(fifo, { maxBytes: 2 ** 20, limitName: '--max-plan-mb' })).toThrow(`${fifo} is over the limit of 1 MiB (--max-plan-mb)`);
    } finally {
      writer.kill();
    }
  });

  test('a FIFO whose writer never writes: refused after the time bound, naming it', () => {
    const fifo = path.join(tempDir('fifo-'), 'plan.json');
    require('child_process').execFileSync('mkfifo', [fifo]);
    const writer = spawn('sh', ['-c', `exec sleep 30 > '${fifo}'`], { stdio: 'ignore' });
    try {
      // Opening for the read succeeds at once (O_NONBLOCK); the bound is the timeout.
      const start = Date.now();
      let error: Error | undefined;
      while (!error && Date.now() - start < 5000) {
        try {
          readBounded(fifo, { maxBytes: 2 ** 20, limitName: '--max-plan-mb', timeoutMs: 300, timeoutName: 'the plan read timeout' });
        } catch (e) {
          error = e as Error;
        }
      }
      expect(error?.message).toMatch(/no end of data after 0\.3 s \(0 MiB read\) \(the plan read timeout\)|not valid/);
    } finally {
      writer.kill();
    }
  });

  test('a FIFO with a plan in it is read whole', async () => {
    const fifo = path.join(tempDir('fifo-'), 'plan.json');
    require('child_process').execFileSync('mkfifo', [fifo]);
    const writer = spawn('sh', ['-c', `exec cat '${real('moves')}' > '${fifo}'`], { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(readBounded(fifo, { maxBytes: 2 ** 20, limitName: 'x' }).toString()).toBe(text('moves'));
    writer.kill();
  });
});

describe('comment and terminal safety: every payload from a plan or a check is inert', () => {
  // GitHub Flavored Markdown as a comment renders it: raw HTML on, bare URLs linked, tables.
  const md = new MarkdownIt({ html: true, linkify: true });

  test('render-payloads.json: a fake heading, an open <details>, a mention, links, an image, escapes: none survive', () => {
    const r = review(['--plan', `infra=${real('render-payloads')}`]);
    expect(r.code).toBe(1); // the failing check
    expect(text('render-payloads')).toContain('\\n# Plan review: \\u2705 no errors\\n<details>'); // the fixture carries them
    const html = md.render(r.report);
    expect(html.match(/<h1>/g)).toHaveLength(1); // only the report's own heading
    expect(html).toMatch(/^<!-- tpu-post-training:plan-review -->\n<h1>Plan review: 🛑 1 error\(s\)<\/h1>/);
    expect(html).not.toMatch(/<details|<summary|<img|<a [^>]*evil/); // the report's own links are to the price sources
    expect(r.report).not.toMatch(/(^|[^\w])@team/); // GitHub links a mention after a non-word character
    expect(r.all).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/); // no terminal control in stdout, stderr or the report
    // shown, inert: the heading text mid-line, the backtick as a backtick, the mention broken by a zero-width space
    expect(r.report).toContain('fails: x # Plan review: ✅ no errors &lt;details>&lt;summary>ok&lt;/summary> @\u200bteam \\[click\\](https:\u200b//evil.example/x)');
    expect(html).toContain('x # Plan review: ✅ no errors &lt;details&gt;&lt;summary&gt;ok&lt;/summary&gt; @\u200bteam [click](https:\u200b//evil.example/x)');
    expect(html).toContain('`tick #\u200b12');
    expect(leaked(r.all, ['\u001b]52', 'Y2FuYXJ5\u0007', '\u001b[2J'])).toEqual([]);
  });

  test('the same payloads as a stack name, a finding\'s text, a --base diff line and code spans', () => {
    const payload = 'x\n# Plan review: ✅ no errors\n<details>\n@team [a](https://evil.example) `b` \u001b]52;c;Zm9v\u0007';
    expect(inert(payload)).toBe('x # Plan review: ✅ no errors &lt;details> @\u200bteam \\[a\\](https:\u200b//evil.example) `b` ');
    expect(stripControls(inert(payload))).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    expect(inert('# heading')).toBe('\\# heading');
    expect(inert('1. item')).toBe('1\\. item');
    expect(inert('203.0.113.0/24', false)).toBe('203.0.113.0/24');
    expect(inert('sa@proj.iam.gserviceaccount.com')).toBe('sa@proj.iam.gserviceaccount.com'); // an e-mail is no mention
    expect(inert('&#64;team')).toBe('&amp;#\u200b64;team');
    expect(inert('unclosed ` tick')).toBe('unclosed \\` tick');
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('`x')).toBe('`` `x ``');
    expect(md.renderInline(codeSpan('a ``` b'))).toBe('<code>a ``` b</code>');
    const html = md.render(`- ${inert(payload)}\n\n${inert(payload)}\n\n| a |\n| --- |\n| ${inert(payload, false).replace(/\|/g, '\\|')} |\n`);
    expect(html).not.toMatch(/<h\d>|<details|<a |<img/);
    expect(html).toContain('# Plan review: ✅ no errors &lt;details&gt; @\u200bteam'); // shown as text
  });

  test('stripControls: CSI, OSC (BEL or ST), DCS, 8-bit C1 and lone controls go; text, tabs and newlines stay', () => {
    expect(stripControls('a\u001b[2Jb\u001b[1;31mc\u001b]52;c;Zm9v\u0007d\u001b]8;;http://x\u001b\\e\u001bPq#0\u001b\\f\u009b2Jg\u0000h\ti\nj\rk\u007f')).toBe('abcdefg' + 'h\ti\njk');
    // a sequence cut by a chunk boundary loses its ESC: what is left is plain text
    expect(stripControls('\u001b')).toBe('');
    expect(stripControls(']52;c;Zm9v')).toBe(']52;c;Zm9v');
  });
});

describe('--base: a removed pipeline stack, and no false state-move warnings', () => {
  const base = (stacks: Record<string, unknown>) => () => synthesisFromJson(stacks as Record<string, TerraformJson>, 'main (base)');

  test('a pipeline stack with TPU training removed from the synthesis: an error naming its training (exit 1)', () => {
    const r = runCli(['--base', 'main'], synthesisDir({ infra: infraJson() }), base({ infra: infraJson(), 'rl-qwen3': pipelineJson() }));
    expect(r.code).toBe(1);
    expect(r.report).toMatch(/🛑 error \| rl-qwen3 \| `kubernetes_manifest.train` \| stack rl-qwen3 is removed from the synthesis, but removing a stack destroys nothing: its training \(qwen3-8b-train, 32 TPU chips\) keeps running/);
    const found = reviewRules([], [], [], undefined, diffSyntheses(synthesisFromJson({ infra: asTf(infraJson()), 'rl-qwen3': asTf(pipelineJson()) }), synthesisFromJson({ infra: asTf(infraJson()) })));
    expect(found.filter((f) => f.rule === 'base-removes-pipeline').map((f) => f.severity)).toEqual(['error']);
    // a removed stack without TPU steps, or a pipeline kept: no finding
    const kept = diffSyntheses(synthesisFromJson({ 'rl-qwen3': asTf(pipelineJson()) }), synthesisFromJson({ 'rl-qwen3': asTf(pipelineJson()) }));
    expect(reviewRules([], [], [], undefined, kept).filter((f) => f.rule === 'base-removes-pipeline')).toEqual([]);
  });

  test('a rename with its `moved` block (as cdktf writes it) is no warning; without it, it is', () => {
    const before = infraJson();
    const after = infraJson();
    after.resource.google_storage_bucket.ckpt = after.resource.google_storage_bucket.bucket;
    delete after.resource.google_storage_bucket.bucket;
    const withoutMoved = diffSyntheses(synthesisFromJson({ infra: asTf(before) }), synthesisFromJson({ infra: asTf(after) }));
    expect(withoutMoved[0]!.renamed).toEqual([{ from: 'google_storage_bucket.bucket', to: 'google_storage_bucket.ckpt', name: 'proj-post-training' }]);
    const withMoved = diffSyntheses(synthesisFromJson({ infra: asTf(before) }), synthesisFromJson({ infra: asTf({ ...after, moved: [{ to: 'google_storage_bucket.ckpt', from: 'google_storage_bucket.bucket' }] }) }));
    expect(withMoved[0]!.renamed).toEqual([]);
  });

  test('the same backend with its keys in another order moves no state: no backend-key-changed', () => {
    const a = { ...infraJson(), terraform: { backend: { gcs: { bucket: 'state', prefix: 'tpu-post-training/p/c/infra' } } } };
    const b = { ...infraJson(), terraform: { backend: { gcs: { prefix: 'tpu-post-training/p/c/infra', bucket: 'state' } } } };
    const diff = diffSyntheses(synthesisFromJson({ infra: asTf(a) }), synthesisFromJson({ infra: asTf(b) }));
    expect(diff[0]!.backend).toBeUndefined();
    expect(reviewRules([], [], [], undefined, diff).filter((f) => f.rule === 'backend-key-changed')).toEqual([]);
  });
});

test("one pipeline's plan given as another's (the same addresses, the other's names): plan-wrong-stack, exit 1", () => {
  const llama = JSON.parse(JSON.stringify(pipelineJson()).replace(/qwen3-8b/g, 'llama3-8b')) as unknown;
  const dir = synthesisDir({ infra: infraJson(), 'rl-qwen3': pipelineJson(), 'rl-llama3': llama });
  const plan = path.join(__dirname, 'fixtures', 'plans', 'replace-training-jobset.json'); // a plan of rl-qwen3
  const wrong = runCli(['--plan', `rl-llama3=${plan}`], dir);
  expect(wrong.code).toBe(1);
  expect(wrong.report).toMatch(/🛑 error \| rl-llama3 \| `\(plan\)` \| .*replace-training-jobset\.json plans objects named as stack rl-qwen3 names them, not as rl-llama3 does: it is the plan of rl-qwen3/);
  const right = runCli(['--plan', `rl-qwen3=${plan}`], dir);
  expect(right.report).not.toContain('plans objects named as stack');
});
