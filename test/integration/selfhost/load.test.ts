import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/server/config.js';
import { Daemon } from '../../../src/server/daemon.js';
import { ManualClock, DAY } from '../../../src/shared/clock.js';
import { runRetention } from '../../../src/services/retention.js';
import { SmtpPipe } from '../inbound/smtp-client.js';
import { count, deliver, rawMessage } from './helpers.js';

let daemon: Daemon | null = null;
let dir = '';
afterEach(async () => {
  await daemon?.stop();
  daemon = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** SMTP clients sending until stopped; every reply and its latency is kept. */
function smtpLoad(port: number, agent: string, connections: number) {
  let stopping = false;
  const replies: { code: string; ms: number; id: string | null }[] = [];
  const runs = Array.from({ length: connections }, async (_, c) => {
    const pipe = await SmtpPipe.open(port);
    for (let i = 0; !stopping; i++) {
      const t0 = performance.now();
      const r = await pipe.send('alice@example.com', [agent], rawMessage({ to: agent, subject: `load ${c}-${i}` }));
      replies.push({ code: r.slice(0, 3), ms: performance.now() - t0, id: /stored as (\S+)/.exec(r)?.[1] ?? null });
    }
    await pipe.quit();
  });
  return { replies, stop: async () => { stopping = true; await Promise.all(runs); } };
}

describe('retention under SMTP load', () => {
  it('SMTP keeps answering 250 while old mail is deleted in batches; nothing inside the policy is deleted', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mailagent-load-'));
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const config = loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent' }, {});
    daemon = await Daemon.create(config, { quiet: true, clock });
    const addr = await daemon.start();
    const agent = daemon.bootstrapped!.agent.email;
    const OLD = 300;
    for (let i = 0; i < OLD; i++) await deliver(daemon.ctx, agent, `old ${i}`, { attachment: 'o'.repeat(8000) });
    clock.advance(40 * DAY);

    const load = smtpLoad(Number(addr.smtp!.split(':').pop()), agent, 4);
    await new Promise((r) => setTimeout(r, 300)); // load is flowing before retention starts
    const t0 = performance.now();
    const c = await runRetention(daemon.ctx, { messagesDays: 30, messagesPerAgent: 0, eventsDays: 0, webhookDeliveriesDays: 0, requestLogDays: 0 }, { batchSize: 50 });
    const retentionMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 200));
    await load.stop();

    expect(c.received).toBe(OLD);
    const codes = new Set(load.replies.map((r) => r.code));
    expect([...codes]).toEqual(['250']);
    expect(load.replies.length).toBeGreaterThan(10);
    // Every message acknowledged during the run is still there (once processed: the inbound queue
    // acknowledges first); every old one is gone.
    while (await count(daemon.ctx, 'inbound_queue') > 0) await new Promise((r) => setTimeout(r, 20));
    expect(await count(daemon.ctx, 'received_messages')).toBe(load.replies.length);
    const ids = load.replies.map((r) => `'${r.id}'`).join(',');
    expect(await count(daemon.ctx, 'received_messages', `id IN (${ids})`)).toBe(load.replies.length);
    const lat = load.replies.map((r) => r.ms).sort((a, b) => a - b);
    console.log(`retention of ${OLD} messages took ${retentionMs.toFixed(0)} ms under SMTP load; ${load.replies.length} messages acknowledged meanwhile; SMTP latency p50 ${lat[Math.floor(lat.length / 2)].toFixed(1)} ms, max ${lat[lat.length - 1].toFixed(1)} ms`);
  }, 120_000);
});
