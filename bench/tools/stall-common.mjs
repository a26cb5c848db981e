// What the stall benches share (large-sends.bench.mjs, large-drafts.bench.mjs): an SMTP sink as the
// live relay, the load average, a sleep.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const { SMTPServer } = createRequire(import.meta.url)('smtp-server');

/** The relay: takes every message and drops it. */
export async function sink() {
  const s = new SMTPServer({ authOptional: true, hideSTARTTLS: true, disableReverseLookup: true, logger: false, onData(stream, _s, cb) { stream.resume(); stream.on('end', () => cb()); } });
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  return { url: `smtp://127.0.0.1:${s.server.address().port}`, close: () => new Promise((r) => s.close(r)) };
}
export const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
