import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { receivedSoon } from './helpers.js';
import { MAX_BODY_CHARS } from '../../../src/mail/parse.js';
import { FROZEN_MS, healthProbe } from '../../helpers/health-probe.js';

/**
 * The worker pool (src/server/pipeline) against a real daemon over real SMTP and HTTP: one message
 * built to make mailparser's HTML-to-text pass superlinear (hardening issue, item 1: `<div>` ×
 * 400,000, 2 MB, folded at 990 characters; 50 s of one thread before the pool) must not stop the
 * daemon from answering, must not stop other deliveries, and is stored with what could be
 * extracted plus `extraction_truncated: true`.
 */
// Long enough that the nested-HTML fallback (tag stripping after mailparser gives up) finishes
// on a loaded CI machine (at 1 s it was cut at load ~20 and stored no text); the crafted 50 s
// message is still cut by it.
const BUDGET_MS = 4000;
const AGENT = 'agent@local.mailagent.localhost';

function craftedHtml(): string {
  return '<div>'.repeat(400_000).match(/.{1,990}/g)!.join('\r\n');
}

function craftedEml(subject: string): string {
  return [
    'From: Mallory <mallory@crafted.test>', `To: ${AGENT}`, `Subject: ${subject}`,
    `Message-ID: <${subject.replace(/\W/g, '')}@crafted.test>`, 'MIME-Version: 1.0', 'Content-Type: text/html; charset=utf-8',
    '', craftedHtml(), '',
  ].join('\r\n');
}

let d: TestDaemon;
let smtpPort: number;
beforeAll(async () => {
  d = await startDaemon({ env: { MAILAGENT_PIPELINE_BUDGET_MS: String(BUDGET_MS), MAILAGENT_PIPELINE_WORKERS: '2' } });
  smtpPort = Number(/SMTP [^\s]+:(\d+)/.exec(d.stderr())![1]);
});
afterAll(async () => {
  await d?.stop();
});

const transport = () => nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, socketTimeout: 60_000 });
const idOf = (response: string) => /rcv_[0-9a-z]+/.exec(response)![0];

describe('pipeline: one message cannot freeze the daemon', () => {
  it('over SMTP: health keeps answering (no freeze), other mail is delivered, the message is stored and flagged', async () => {
    const probe = healthProbe(d.url);
    const tr = transport();
    const crafted = tr.sendMail({ envelope: { from: 'mallory@crafted.test', to: [AGENT] }, raw: craftedEml('nested divs') });
    // While the crafted message holds one worker, other senders still get their 250.
    await new Promise((r) => setTimeout(r, 200));
    const others = await Promise.all(Array.from({ length: 6 }, (_, i) => transport().sendMail({
      from: `friend${i}@sender.test`, to: AGENT, subject: `ordinary ${i}`, text: `Hello number ${i}.`,
    })));
    const info = await crafted;
    expect(info.response).toMatch(/^250 /);
    // The 250 follows the durable raw commit; the parse runs after it. The probe covers both, until
    // the message is stored (ending it at the 250 gave it ~300 ms and three answers on a fast run).
    const msg = await receivedSoon(d, idOf(info.response));
    const { worst, answers } = await probe.end();
    expect(answers).toBeGreaterThan(0);
    expect(worst, 'slowest /v1/health answer while the message was received and processed (ms)').toBeLessThan(FROZEN_MS);

    expect(msg.extraction_truncated).toBe(true);
    expect(msg.subject).toBe('nested divs');
    expect(msg.from.address).toBe('mallory@crafted.test');
    // What could be extracted is kept: the HTML part, up to the stored body cap (the raw bytes are complete).
    expect(msg.body_html.length).toBe(MAX_BODY_CHARS);
    expect(msg.body_html.startsWith('<div>')).toBe(true);
    expect(msg.classification).not.toBeNull();
    const raw = Buffer.from(await (await fetch(`${d.url}/v1/messages/${msg.id}/raw`, { headers: { authorization: `Bearer ${d.liveKey}` } })).arrayBuffer());
    expect(raw.length).toBe(msg.size);

    for (const o of others) {
      expect(o.response).toMatch(/^250 /);
      const m = await d.api('GET', `/v1/messages/received/${idOf(o.response)}`, undefined, d.liveKey);
      expect(m.extraction_truncated).toBe(false);
      expect(m.body_text).toMatch(/^Hello number \d\.\n?$/);
    }
    // The list shows the flag too, and the events of the flagged message were emitted once.
    const list = await d.api('GET', '/v1/messages/received?limit=20', undefined, d.liveKey);
    expect(list.data.filter((m: { extraction_truncated: boolean }) => m.extraction_truncated)).toHaveLength(1);
    const events = await d.api('GET', '/v1/events?limit=100', undefined, d.liveKey);
    expect(events.data.filter((e: { data: { message_id?: string } }) => e.data.message_id === msg.id)).toHaveLength(1);
  }, 90_000);

  it('nested HTML mailparser gives up on keeps its HTML body, gets a tag-stripped text, and says extraction_truncated', async () => {
    // 20,000 nested <div>s (220 KB): "Failed to parse HTML"; 300,000 (3.3 MB): "HTML too long for parsing".
    for (const [n, subject] of [[20_000, 'nested 20k'], [300_000, 'nested 300k']] as const) {
      const html = ('<div>'.repeat(n) + 'hello inside' + '</div>'.repeat(n)).match(/.{1,990}/g)!.join('\r\n');
      const eml = ['From: deep@crafted.test', `To: ${AGENT}`, `Subject: ${subject}`, 'MIME-Version: 1.0', 'Content-Type: text/html; charset=utf-8', '', html, ''].join('\r\n');
      const info = await transport().sendMail({ envelope: { from: 'deep@crafted.test', to: [AGENT] }, raw: eml });
      // A read after the 250 waits up to 2 s for the message to be processed (services/inbound-queue.ts
      // settled); a 3.3 MB message on a loaded machine may take longer: this test is about what is
      // stored, so it asks again until the message is there.
      const msg = await receivedSoon(d, idOf(info.response));
      expect(msg.extraction_truncated, subject).toBe(true);
      expect(msg.body_html.startsWith('<div>'), subject).toBe(true);
      if (n === 300_000) expect(msg.body_html.length).toBe(MAX_BODY_CHARS);
      else expect(msg.body_html).toContain('hello inside');
      // The text is the HTML without its tags, never the raw markup, and within the documented cap.
      expect(msg.body_text, subject).not.toContain('<div>');
      expect(msg.body_text.length).toBeLessThanOrEqual(MAX_BODY_CHARS);
      if (n === 20_000) expect(msg.body_text).toContain('hello inside');
    }
  }, 120_000);

  it('over POST /v1/classify {raw}: health keeps answering (no freeze) and the classification comes back', async () => {
    const probe = healthProbe(d.url);
    const res = await fetch(`${d.url}/v1/classify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ raw: craftedEml('classify me') }),
      signal: AbortSignal.timeout(60_000),
    });
    const { worst, answers } = await probe.end();
    expect(res.status).toBe(200);
    const body = await res.json() as { classification: { intent: string }; quarantined: boolean };
    expect(typeof body.classification.intent).toBe('string');
    expect(answers).toBeGreaterThan(3);
    expect(worst).toBeLessThan(FROZEN_MS);
  }, 90_000);
});
