/**
 * `npm run test:postgres [-- vitest args]`: the test suite on PostgreSQL instead of SQLite. The
 * global setup (test/helpers/pg-global-setup.ts) starts a throwaway server; when PostgreSQL is
 * not installed here, the run is skipped with the reason (exit 0), as CI's other optional parts.
 *
 * `--ci` (npm run test:postgres:ci, .ci/run): only the test files that open the test database,
 * i.e. whose imports reach test/helpers/{app,daemon,db,postgres}.ts (createTestApp, startDaemon,
 * testDatabase): only those switch engine with MAILAGENT_TEST_DATABASE. Every other file (pure
 * units: classifier, CLI rendering, docs freshness, architecture; tests that build their own
 * SQLite daemon or file on purpose: migrations on an old SQLite file, data-dir locking, SQLite
 * durability) runs exactly as in `npm test`, which CI has just run: repeating it would only cost
 * time. The selection is computed from the imports each run, so a new test is covered as soon as
 * it uses those helpers (`--ci --list` prints it and stops).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresUnavailable } from '../test/helpers/postgres.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENGINE_HELPERS = ['app', 'daemon', 'db', 'postgres'].map((h) => join(ROOT, 'test', 'helpers', `${h}.ts`));

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? testFiles(p) : e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** Whether a test file's relative imports (followed through test/) reach an engine-switching helper. */
function usesTestDatabase(file: string, seen = new Set<string>()): boolean {
  if (ENGINE_HELPERS.includes(file)) return true;
  if (seen.has(file) || !file.startsWith(join(ROOT, 'test'))) return false;
  seen.add(file);
  const src = readFileSync(file, 'utf8');
  for (const m of src.matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = resolve(dirname(file), m[1]).replace(/\.js$/, '.ts');
    if (existsSync(target) && usesTestDatabase(target, seen)) return true;
  }
  return false;
}

const missing = postgresUnavailable();
if (missing) {
  process.stdout.write(`PostgreSQL run skipped: ${missing}\n`);
  process.exit(0);
}
let args = process.argv.slice(2);
if (args[0] === '--ci') {
  const all = testFiles(join(ROOT, 'test')).sort();
  const chosen = all.filter((f) => usesTestDatabase(f));
  process.stdout.write(`PostgreSQL run over the ${chosen.length} of ${all.length} test files that open the test database; the other ${all.length - chosen.length} never do (they ran in npm test):\n`
    + all.filter((f) => !chosen.includes(f)).map((f) => `  ${relative(ROOT, f)}\n`).join(''));
  args = [...chosen.map((f) => relative(ROOT, f)), ...args.slice(1)];
  if (args.includes('--list')) process.exit(0); // the selection only
}
const r = spawnSync('npx', ['vitest', 'run', ...args], {
  stdio: 'inherit',
  env: { ...process.env, MAILAGENT_TEST_DATABASE: 'postgres' },
});
process.exit(r.status ?? 1);
