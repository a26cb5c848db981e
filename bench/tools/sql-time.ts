/**
 * Time spent per SQL statement text while a bench runs in this process (better-sqlite3 is
 * synchronous, so this is main-thread time; COMMIT includes the fsync of synchronous=FULL).
 * Usage: npx tsx bench/tools/sql-time.ts bench/smtp.bench.ts --quick
 */
import { observeStatements, StatementTimes } from './statement-hook.js';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const times = new StatementTimes();
const stats = times.stats;
let prepMs = 0;
let prepN = 0;
observeStatements({
  ran: (source, ms) => times.add(source.replace(/\s+/g, ' ').slice(0, 140), ms),
  prepared: (ms) => {
    prepMs += ms;
    prepN++;
  },
});
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
