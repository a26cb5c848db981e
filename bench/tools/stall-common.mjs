// What the stall benches share (large-sends.bench.mjs, large-drafts.bench.mjs): an SMTP sink as the
// live relay, a build's daemon under stall-daemon.mjs, the load average, a sleep.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const { SMTPServer } = createRequire(import.meta.url)('smtp-server');

/** The relay: takes every message and drops it. */
export async function sink() {
  const s = new SMTPServer({ authOptional: true, hideSTARTTLS: true, disableReverseLookup: true, logger: false, onData(stream, _s, cb) { stream.resume(); stream.on('end', () => cb()); } });
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  return { url: `smtp://127.0.0.1:${s.server.address().port}`, close: () => new Promise((r) => s.close(r)) };
}
export const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A build's daemon (`<root>/dist`) on data dir `home` under stall-daemon.mjs, with more config
 * flags (`config`, e.g. the relay's URL). `next()` reads the daemon's next line (JSON), `say(s)`
 * writes one; `stop()` asks it to stop and waits for it to exit. The first line (its addresses and
 * keys) is already read: `url`, `testKey`, `liveKey`.
 */
export async function stallDaemon(root, home, config) {
  const tool = join(dirname(fileURLToPath(import.meta.url)), 'stall-daemon.mjs');
  const child = spawn(process.execPath, [tool, join(root, 'dist'), home], {
    env: { ...process.env, STALL_DAEMON_CONFIG: JSON.stringify(config) }, stdio: ['pipe', 'pipe', 'inherit'],
  });
  const waiting = [];
  createInterface({ input: child.stdout }).on('line', (l) => waiting.shift()?.(JSON.parse(l)));
  const next = () => new Promise((r) => waiting.push(r));
  const say = (s) => child.stdin.write(s + '\n');
  const { http: url, testKey, liveKey } = await next();
  const stop = async () => {
    say('stop');
    await new Promise((r) => child.on('exit', r));
  };
  return { url, testKey, liveKey, next, say, stop };
}
