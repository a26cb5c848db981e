// CPU per job (all threads of this process) of a just-started pipeline pool, per 250 jobs: how a
// pool worker's cost falls while V8 compiles its code (bench/README.md, round 2 session 11). Jobs
// are parse + classify-along of an smtp-source-like 2 KB message, `per turn` queued at once.
//   node bench/tools/pool-cold.mjs <dist dir> [jobs=5000] [workers=2] [per turn=10]
// With --trace-opt, a line "MARK <jobs>" per 250 jobs separates V8's optimisations per interval.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dist, jobsArg, workersArg, turnArg] = process.argv.slice(2);
const TURN = Number(turnArg ?? 10);
const { createPipeline } = await import(pathToFileURL(join(resolve(dist), 'server/pipeline/index.js')).href);
const log = { warn() {}, info() {}, error() {}, debug() {}, trace() {}, child() { return log; } };
const pool = createPipeline({ workers: Number(workersArg ?? 2), budgetMs: 5000, log });
await pool.ready();
const body = 'La-la-la '.repeat(230);
const msg = (i) => Buffer.from(`From: <bench@load.test>\r\nTo: <agent@local.mailagent.localhost>\r\nDate: Sat, 28 Nov 2026 13:00:00 +0000\r\nMessage-Id: <${i}@load.test>\r\nSubject: test\r\n\r\n${body}\r\n`);
const history = { messagesFromSender: 5, messagesFromDomain: 5, repliesFromSender: 0, sendsToSender: 0, spfPass: null, dkimPass: null, suppressed: false, complaints: 0 };
const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim() || 100);
const cpu = () => {
  let t = 0;
  for (const d of readdirSync('/proc/self/task')) {
    try {
      const s = readFileSync(`/proc/self/task/${d}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      t += Number(f[11]) + Number(f[12]);
    } catch { /* the thread ended */ }
  }
  return t * TICK_MS;
};
const N = Number(jobsArg ?? 5000);
let c0 = cpu();
const t0 = performance.now();
const out = [];
for (let i = 0; i < N; i += TURN) {
  await Promise.all(Array.from({ length: TURN }, (_, k) => pool.work.parse(msg(i + k), { mailFrom: 'bench@load.test', expectFrom: 'bench@load.test', classifyIntent: true, history, now: Date.now() })));
  if (Math.floor((i + TURN) / 250) > Math.floor(i / 250)) {
    const c = cpu();
    out.push(((c - c0) / 250).toFixed(2));
    c0 = c;
    console.log('MARK', i + TURN);
  }
}
console.log(`ms CPU per job (all threads), per 250 jobs: ${out.join(' ')}; wall ${((performance.now() - t0) / 1000).toFixed(1)} s`);
await pool.close();
