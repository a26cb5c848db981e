/**
 * Time spent per SQL statement text while a bench runs in this process (better-sqlite3 is
 * synchronous, so this is main-thread time; COMMIT includes the fsync of synchronous=FULL).
 * Usage: npx tsx bench/tools/sql-time.ts bench/smtp.bench.ts --quick
 */
import BetterSqlite3 from 'better-sqlite3';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const stats = new Map<string, { n: number; ms: number }>();
let prepMs = 0;
let prepN = 0;
const proto = (BetterSqlite3 as unknown as { prototype: { prepare: (sql: string) => object } }).prototype;
const prepare = proto.prepare;
let patched = false;
proto.prepare = function (this: unknown, sql: string) {
  const t0 = performance.now();
  const stmt = prepare.call(this, sql) as Record<string, (...a: unknown[]) => unknown>;
  prepMs += performance.now() - t0;
  prepN++;
  if (!patched) {
    patched = true;
    const sp = Object.getPrototypeOf(stmt) as Record<string, (...a: unknown[]) => unknown>;
    for (const m of ['all', 'run', 'get']) {
      const orig = sp[m];
      sp[m] = function (this: { source: string }, ...args: unknown[]) {
        const t = performance.now();
        try {
          return orig.apply(this, args);
        } finally {
          const key = this.source.replace(/\s+/g, ' ').slice(0, 140);
          const s = stats.get(key) ?? { n: 0, ms: 0 };
          s.n++;
          s.ms += performance.now() - t;
          stats.set(key, s);
        }
      };
    }
  }
  return stmt;
};
const realExit = process.exit.bind(process);
const report = () => {
  const rows = [...stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, 30);
  const total = [...stats.values()].reduce((a, s) => a + s.ms, 0);
  console.log(`\n-- SQL time: ${total.toFixed(0)} ms executing, ${prepMs.toFixed(0)} ms preparing (${prepN} prepares)`);
  for (const [k, s] of rows) console.log(`${s.ms.toFixed(0).padStart(7)} ms ${String(s.n).padStart(6)}× ${(s.ms / s.n).toFixed(3).padStart(7)}  ${k}`);
};
process.exit = ((code?: number) => { report(); realExit(code); }) as typeof process.exit;
const target = resolve(process.argv.splice(2, 1)[0]);
await import(pathToFileURL(target).href);
report();
