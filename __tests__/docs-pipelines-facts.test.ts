/**
 * docs/pipelines.md says what the code does (issue 46): each method's default eval task is the method table's
 * (jobs/methods: GRPO/GSPO evaluate `gsm8k_reasoning`, the project's own GSM8K task in the training template, not
 * lm-eval's 5-shot `gsm8k`), and the eval step's health polls are the model's start window over SERVER_POLL_SECONDS
 * (jobs/eval.ts, jobs/vllm.ts serverStartSeconds), not a fixed 180.
 */
import * as fs from 'fs';
import * as path from 'path';
import { METHOD_ROWS } from '../jobs/methods';
import { RECIPES } from '../jobs/recipes';
import { SERVER_POLL_SECONDS } from '../jobs/eval';
import { serverStartSeconds } from '../jobs/vllm';
import { modelSize } from '../jobs/models';

const doc = () => fs.readFileSync(path.join(__dirname, '..', 'docs', 'pipelines.md'), 'utf8');

test("the methods table's default eval column is each method's defaultEval", () => {
  // The methods table (its header names the default eval), not the later tables that also start with a method.
  const table = doc().split('\n| method | module (config file) |')[1]!.split('\n\n')[0]!;
  const rows = table.split('\n').filter((l) => /^\| `(sft|grpo|dpo)`/.test(l));
  expect(rows).toHaveLength(METHOD_ROWS.length);
  for (const row of METHOD_ROWS) {
    const line = rows.find((l) => Object.keys(row.methods).some((m) => l.startsWith(`| \`${m}\``)))!;
    const last = line.split('|').map((c) => c.trim()).filter(Boolean).pop();
    expect([Object.keys(row.methods).join(','), last]).toEqual([Object.keys(row.methods).join(','), row.defaultEval.map((t) => `\`${t}\``).join(', ')]);
  }
});

test("the eval step's health-poll bound the docs give is the tutorials' models' own", () => {
  const polls = [...new Set(Object.values(RECIPES).map((r) => Math.ceil(serverStartSeconds(modelSize(r.model.name)!) / SERVER_POLL_SECONDS)))].sort((a, b) => a - b);
  expect(doc()).toContain(`every ${SERVER_POLL_SECONDS} s, within the model's start window: ${polls[0]} to ${polls[polls.length - 1]} polls for the tutorials' models`);
  expect(doc()).not.toContain('at most 180 times');
});
