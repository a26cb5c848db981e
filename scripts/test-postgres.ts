/**
 * `npm run test:postgres [-- vitest args]`: the test suite on PostgreSQL instead of SQLite. The
 * global setup (test/helpers/pg-global-setup.ts) starts a throwaway server; when PostgreSQL is
 * not installed here, the run is skipped with the reason (exit 0), as CI's other optional parts.
 *
 * `--ci` (npm run test:postgres:ci, .ci/run): only the test files that open the test database,
 * i.e. that use, themselves or through a test module they import, what switches engine with
 * MAILAGENT_TEST_DATABASE: createTestApp, startDaemon, testDatabase, onPostgres or the server
 * (pgAdminUrl) from test/helpers/{app,daemon,db,postgres}.ts. Every other file (pure units:
 * classifier, CLI rendering, docs freshness, architecture; files that import only ROOT, BIN,
 * runCli or checkResponse from those helpers; tests that build their own SQLite daemon or file on
 * purpose: migrations on an old SQLite file, data-dir locking, SQLite durability) runs exactly as
 * in `npm test`, which CI has just run: repeating it would only cost time. The selection is
 * computed from the sources each run, so a new test is covered as soon as it uses those helpers
 * (`--ci --list` prints it and stops).
 *
 * Of those, CI also leaves out the files in CI_SKIP (below, each with its reason): their subject is
 * a CLI process, a browser or the docs, not storage, and the API calls behind them run on
 * PostgreSQL in the in-process tests; or (the corpus) its PostgreSQL-specific part is covered by
 * a faster test. Together they were about half of the PostgreSQL run's time, and CI must stay
 * under 15 minutes on 2 cores (.ci/run). `npm run test:postgres` still runs every file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresUnavailable } from '../test/helpers/postgres.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ENGINE_HELPERS = ['app', 'daemon', 'db', 'postgres'].map((h) => join(ROOT, 'test', 'helpers', `${h}.ts`));
/** What a test module uses when it opens the test database (defined in ENGINE_HELPERS). */
const ENGINE_SWITCH = /\b(?:createTestApp|startDaemon|testDatabase|onPostgres|pgAdminUrl)\b/;
/** A relative import or re-export (group 1: `type` when it imports types only), or a dynamic import(). */
const RELATIVE_IMPORT = /(?:^\s*(?:import|export)\s+(type\s+)?[^;]*?\bfrom\s*|\bimport\(\s*)['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Left out of CI's PostgreSQL run (not of `npm run test:postgres`), and why. */
const CI_SKIP: [RegExp, string][] = [
  // Kept: cli/local-dev, */cli-admin, selfhost/cli: `mailagent admin …` opens the configured database itself.
  [/^test\/integration\/cli\/(?!local-dev\.)/, 'the CLI process against a daemon\'s API: help, rendering, exit codes, profiles'],
  [/^test\/integration\/(outbound\/cli|hardening\/cli-escapes)\.test\.ts$/, 'the CLI process against a daemon\'s API: output, terminal escaping'],
  [/^test\/integration\/web\/browser\.test\.ts$/, 'the web inbox rendered in Chromium'],
  [/^test\/integration\/selfhost\/docs\.test\.ts$/, 'docs checks'],
  [/^test\/integration\/inbound\/corpus\.test\.ts$/, 'parser robustness over 6,046 messages (~3 min on PostgreSQL); concurrent storing on PostgreSQL is test/integration/cluster/concurrent-ingest.test.ts'],
];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? testFiles(p) : e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/**
 * Whether a test file, or a test module it imports (followed through test/, types only left out),
 * uses what switches engine. The engine helpers themselves are not followed: a file importing only
 * ROOT or runCli from daemon.ts runs the same on both engines.
 */
function usesTestDatabase(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file) || ENGINE_HELPERS.includes(file) || !file.startsWith(join(ROOT, 'test'))) return false;
  seen.add(file);
  const src = readFileSync(file, 'utf8');
  if (ENGINE_SWITCH.test(src)) return true;
  for (const m of src.matchAll(RELATIVE_IMPORT)) {
    if (m[1]) continue;
    const target = resolve(dirname(file), m[2]).replace(/\.js$/, '.ts');
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
  const engine = all.filter((f) => usesTestDatabase(f));
  const skipped = engine.map((f) => [f, CI_SKIP.find(([re]) => re.test(relative(ROOT, f)))?.[1]] as const).filter(([, why]) => why);
  const chosen = engine.filter((f) => !skipped.some(([g]) => g === f));
  process.stdout.write(`PostgreSQL run (CI) over ${chosen.length} of ${all.length} test files.\n`
    + `${all.length - engine.length} never open the test database (they ran in npm test):\n`
    + all.filter((f) => !engine.includes(f)).map((f) => `  ${relative(ROOT, f)}\n`).join('')
    + `${skipped.length} do, but are not about storage (npm run test:postgres runs them):\n`
    + skipped.map(([f, why]) => `  ${relative(ROOT, f)}: ${why}\n`).join(''));
  args = [...chosen.map((f) => relative(ROOT, f)), ...args.slice(1)];
  if (args.includes('--list')) process.exit(0); // the selection only
}
const r = spawnSync('npx', ['vitest', 'run', ...args], {
  stdio: 'inherit',
  env: { ...process.env, MAILAGENT_TEST_DATABASE: 'postgres' },
});
process.exit(r.status ?? 1);
