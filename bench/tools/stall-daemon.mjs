// A daemon from a given build (dist/ directory) in its own process, with an event-loop delay
// monitor on its main thread: the pipeline bench sends one message, then asks for the longest
// stall of the main thread since the last reset.
//   node bench/tools/stall-daemon.mjs <dist dir> <data dir>
// stdin: "reset" | "report" (answers {"maxMs": …, "maxCpuMs": …} on stdout, once the message is processed: a build
// with the inbound queue answers the 250 before processing); first stdout line: {"http", "smtp"}.
import { openSync, readSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';

const [dist, dataDir] = process.argv.slice(2);
const mod = (p) => import(pathToFileURL(join(resolve(dist), p)).href);
const { loadConfig } = await mod('server/config.js');
const { Daemon } = await mod('server/daemon.js');
// STALL_DAEMON_CONFIG: more config flags as JSON (e.g. {"httpMaxBufferedBodyBytes": …}).
const config = loadConfig({ dataDir, port: 0, smtpPort: 0, logLevel: 'silent', ...JSON.parse(process.env.STALL_DAEMON_CONFIG ?? '{}') }, {});
const d = await Daemon.create(config, { quiet: true });
const addr = await d.start();
const h = monitorEventLoopDelay({ resolution: 1 });
h.enable();
// The same stall as the main thread's own CPU time (Linux: /proc/thread-self/schedstat, ns on CPU):
// a wall-clock delay also counts the time the thread waited for a core, which on a machine shared
// with the load generator (or other work) can be most of it. A 1 ms timer reads it; the largest
// difference between two ticks is the most CPU one turn of the event loop took. null: not Linux.
const cpuStall = (() => {
  let fd;
  try {
    fd = openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return null;
  }
  const buf = Buffer.alloc(128);
  const now = () => Number(buf.toString('latin1', 0, readSync(fd, buf, 0, 128, 0)).split(' ')[0]);
  let last = now();
  let max = 0;
  setInterval(() => {
    const t = now();
    max = Math.max(max, t - last);
    last = t;
  }, 1).unref();
  return { reset: () => { max = 0; last = now(); }, maxMs: () => max / 1e6 };
})();
process.stdout.write(JSON.stringify({ http: addr.http, smtp: addr.smtp, liveKey: d.bootstrapped?.keys.live.key ?? null, testKey: d.bootstrapped?.keys.test.key ?? null }) + '\n');
/** Until nothing acknowledged waits for processing (no inbound_queue table: processed before the 250). */
async function processed() {
  for (;;) {
    let n = 0;
    try {
      n = Number((await d.ctx.db.selectFrom('inbound_queue').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    } catch {
      return;
    }
    if (n === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'reset') {
    h.reset();
    cpuStall?.reset();
  } else if (line === 'report') {
    void processed().then(() => process.stdout.write(JSON.stringify({ maxMs: h.max / 1e6, maxCpuMs: cpuStall?.maxMs() ?? null }) + '\n'));
  }
  else if (line === 'stop') void d.stop().then(() => process.exit(0));
});
