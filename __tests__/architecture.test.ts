/**
 * Project-wide rules: provider imports by deep path, pure jobs/, only config/ reads the environment,
 * deterministic synth, no secret in the output.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadDeployment } from '../config/deployment';
import { buildApp } from '../stacks/app';

const ROOT = path.join(__dirname, '..');
const SOURCE_DIRS = ['config', 'constructs', 'stacks', 'jobs', 'review', 'bench', '__tests__'];

function sourceFiles(): string[] {
  const files: string[] = [path.join(ROOT, 'main.ts')];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.(ts|js)$/.test(entry.name)) files.push(full);
    }
  };
  SOURCE_DIRS.forEach((d) => walk(path.join(ROOT, d)));
  return files;
}

function listFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true } as any).flatMap((e: any) =>
    e.isFile() ? [path.relative(dir, path.join(e.parentPath ?? e.path, e.name))] : [],
  );
}

test('no source file imports a provider package from its root (3 s and 850 MB per synth)', () => {
  const offenders = sourceFiles().filter((file) =>
    /(from\s+|require\()\s*['"]@cdktf\/provider-(google|kubernetes|helm)['"]/.test(fs.readFileSync(file, 'utf8')),
  );
  expect(offenders).toEqual([]);
});

test('jobs/ is pure: no cdktf, constructs or provider import, no fs or process.env', () => {
  const offenders = sourceFiles()
    .filter((f) => f.startsWith(path.join(ROOT, 'jobs') + path.sep))
    .filter((f) => /from ['"](cdktf|constructs|@cdktf\/[^'"]+|fs|child_process)['"]|process\.env/.test(fs.readFileSync(f, 'utf8')));
  expect(offenders).toEqual([]);
});

test('only config/ reads the environment (the review and bench CLIs excepted)', () => {
  const offenders = sourceFiles()
    .filter((f) => ['constructs', 'stacks', 'jobs'].some((d) => f.startsWith(path.join(ROOT, d) + path.sep)) || f.endsWith('main.ts'))
    .filter((f) => /process\.env/.test(fs.readFileSync(f, 'utf8')));
  expect(offenders).toEqual([]);
});

describe('the whole app', () => {
  const synthTo = (env: Record<string, string | undefined>) => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'tpt-synth-'));
    buildApp(loadDeployment({ env }), { outdir }).synth();
    return outdir;
  };

  test('synth is deterministic: two runs are byte-identical', () => {
    const a = synthTo({});
    const b = synthTo({});
    const files = listFiles(a).sort();
    expect(files.length).toBeGreaterThan(3);
    expect(listFiles(b).sort()).toEqual(files);
    for (const file of files) {
      expect(fs.readFileSync(path.join(b, file)).equals(fs.readFileSync(path.join(a, file)))).toBe(true);
    }
  });

  test('a canary HF_TOKEN in the environment appears nowhere in the output', () => {
    const canary = ['hf', 'CanaryTokenValue0123456789abcdef'].join('_'); // joined so no token-shaped literal is committed
    const saved = process.env.HF_TOKEN;
    process.env.HF_TOKEN = canary;
    try {
      const out = synthTo(process.env);
      for (const file of listFiles(out)) {
        expect(fs.readFileSync(path.join(out, file), 'utf8')).not.toContain(canary);
      }
    } finally {
      if (saved === undefined) delete process.env.HF_TOKEN;
      else process.env.HF_TOKEN = saved;
    }
  });

  test('every depends_on is a plain reference (Terraform JSON rejects "${...}" there)', () => {
    const out = synthTo({});
    for (const file of listFiles(out).filter((f) => f.endsWith('cdk.tf.json'))) {
      const tf = JSON.parse(fs.readFileSync(path.join(out, file), 'utf8'));
      for (const block of [tf.resource ?? {}, tf.data ?? {}]) {
        for (const byName of Object.values(block) as any[]) {
          for (const res of Object.values(byName) as any[]) {
            for (const dep of res.depends_on ?? []) expect(dep).toMatch(/^(data\.)?[a-z0-9_]+\.[A-Za-z0-9_-]+$/);
          }
        }
      }
    }
  });
});
