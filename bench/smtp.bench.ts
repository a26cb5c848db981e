/**
 * Inbound SMTP benchmark (not a test): prints figures against a baseline measured in the same run.
 *   mailagent's listener (parse, SPF/DKIM/DMARC, classify, thread, store with synchronous=FULL, event)
 *   vs a minimal smtp-server that parses each message with mailparser and discards it.
 * Many concurrent sessions (persistent connections, PIPELINING, TCP_NODELAY), 2–20 KB messages.
 * Reports msgs/s accepted and the p50/p99 time from the end of DATA to the 250.
 * Run: npx tsx bench/smtp.bench.ts [--quick]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import { loadConfig } from '../src/server/config.js';
import { Daemon } from '../src/server/daemon.js';
import { SmtpPipe } from '../test/integration/inbound/smtp-client.js';

const QUICK = process.argv.includes('--quick');
const SESSIONS = 16;
const PER_SESSION = QUICK ? 40 : 150;
const WORDS = 'the quick brown fox jumps over lazy dog invoice meeting tomorrow project update report numbers'.split(' ');

function message(i: number): Buffer {
  const size = 2048 + ((i * 7919) % (18 * 1024));
  let body = '';
  while (body.length < size) body += WORDS[(body.length * 31 + i) % WORDS.length] + (body.length % 70 < 6 ? '\r\n' : ' ');
  return Buffer.from([
    `From: Sender ${i % 50} <s${i % 50}@bench.test>`, 'To: agent@local.mailagent.localhost', `Subject: bench message ${i}`,
    `Message-ID: <bench-${i}-${Date.now()}@bench.test>`, 'Date: Thu, 01 Jan 2026 00:00:00 +0000', 'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8', '', body, '',
  ].join('\r\n'));
}

async function run(port: number): Promise<{ rate: number; p50: number; p99: number; failed: number }> {
  const lat: number[] = [];
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: SESSIONS }, async (_, s) => {
    const c = await SmtpPipe.open(port);
    for (let k = 0; k < PER_SESSION; k++) {
      const reply = await c.send(`s${s}@bench.test`, ['agent@local.mailagent.localhost'], message(s * PER_SESSION + k));
      if (reply.startsWith('250')) lat.push(performance.now() - c.dataSentAt);
      else failed++;
    }
    await c.quit();
  }));
  const secs = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor(lat.length * p))] ?? NaN;
  return { rate: lat.length / secs, p50: pct(0.5), p99: pct(0.99), failed };
}

async function baseline(): Promise<number> {
  const server = new SMTPServer({
    logger: false, authOptional: true, disableReverseLookup: true, hideSTARTTLS: true, disabledCommands: ['AUTH', 'STARTTLS'],
    onData(stream, _s, cb) {
      simpleParser(stream).then(() => cb(), (err) => cb(err));
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.server.address() as AddressInfo).port;
}

const dir = mkdtempSync(join(tmpdir(), 'mailagent-smtp-bench-'));
const daemon = await Daemon.create(loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent' }, {}), { quiet: true });
const addr = await daemon.start();
const ours = Number(addr.smtp!.split(':').pop());
const base = await baseline();
// Warm both (JIT, classifier tables), then measure.
await run(base);
await run(ours);
const b = await run(base);
const m = await run(ours);
const f = (x: number) => x.toFixed(1);
console.log(`smtp inbound: ${SESSIONS} sessions × ${PER_SESSION} messages of 2–20 KB`);
console.log(`  baseline smtp-server (parse + discard): ${f(b.rate)} msg/s   DATA→250 p50 ${f(b.p50)} ms  p99 ${f(b.p99)} ms`);
console.log(`  mailagent (parse, auth, classify, thread, store FULL, event): ${f(m.rate)} msg/s   DATA→250 p50 ${f(m.p50)} ms  p99 ${f(m.p99)} ms   (${(100 * m.rate / b.rate).toFixed(0)}% of baseline, ${m.failed} refused)`);
await daemon.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
