import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import nodemailer from 'nodemailer';
import { startDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { startSink, type Sink } from '../../helpers/sink.js';

/**
 * api-foundation.md: "Absent fields are omitted, never null", events included — in their `data`
 * too. A real daemon: mail over real SMTP with no display name, no plus address, no reply and no
 * Message-ID; a message past the plus-address limit; the events read back through every way out
 * (list, retrieve, the live stream, a webhook) must agree and carry no null but the tri-state
 * spf_pass/dkim_pass.
 */
let d: TestDaemon;
let sink: Sink;
let smtpPort: number;
const D = 'local.mailagent.localhost';

/** Every path in `v` whose value is null, except the tri-state authentication results. */
function nulls(v: unknown, path = ''): string[] {
  if (v === null) return /\.(spf_pass|dkim_pass)$/.test(path) ? [] : [path];
  if (Array.isArray(v)) return v.flatMap((x, i) => nulls(x, `${path}[${i}]`));
  if (typeof v === 'object' && v) return Object.entries(v).flatMap(([k, x]) => nulls(x, `${path}.${k}`));
  return [];
}

async function smtp(to: string, raw: string): Promise<void> {
  const t = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
  await t.sendMail({ envelope: { from: 'shop@store.test', to: [to] }, raw });
  t.close();
}

describe('event data: absent fields are omitted, never null (list, retrieve, stream, webhooks)', () => {
  beforeAll(async () => {
    d = await startDaemon({ env: { MAILAGENT_ALLOW_PRIVATE_WEBHOOKS: 'true' } });
    smtpPort = Number(/SMTP \S+:(\d+)/.exec(d.stderr())![1]);
    sink = await startSink();
  }, 60_000);
  afterAll(async () => {
    await sink?.close();
    await d?.stop();
  });

  it('message.received and message.received.over_limit carry no null field anywhere', async () => {
    await d.api('POST', '/v1/webhooks', { url: sink.url, event_types: ['message.received', 'message.received.over_limit', 'thread.created'] }, d.liveKey);
    const ac = new AbortController();
    const stream = await fetch(`${d.url}/v1/events/stream?event_types=message.received,message.received.over_limit,thread.created`, {
      headers: { authorization: `Bearer ${d.liveKey}`, accept: 'text/event-stream' }, signal: ac.signal,
    });
    expect(stream.status).toBe(200);
    const streamed: Record<string, unknown>[] = [];
    const reading = (async () => {
      let buf = '';
      const dec = new TextDecoder();
      try {
        for await (const chunk of stream.body!) {
          buf += dec.decode(chunk as Uint8Array, { stream: true });
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const data = frame.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
            if (data) streamed.push(JSON.parse(data));
          }
        }
      } catch { /* aborted */ }
    })();

    // No display name, no Message-ID, not a reply, to the agent's own address (no plus address).
    await smtp(`agent@${D}`, `From: shop@store.test\r\nTo: agent@${D}\r\nSubject: Plain order\r\nDate: Sat, 28 Nov 2026 08:00:00 +0000\r\n\r\nThanks for your order.\r\n`);
    // Free: 20 distinct plus addresses a day; the 21st is a record only, with an over_limit event.
    for (let i = 0; i <= 20; i++) {
      await smtp(`agent+p${i}@${D}`, `From: shop@store.test\r\nTo: agent+p${i}@${D}\r\nSubject: Order ${i}\r\nMessage-ID: <o${i}@store.test>\r\n\r\nThanks.\r\n`);
    }
    const wanted = (evs: { type: string }[]) => evs.some((e) => e.type === 'message.received.over_limit') && evs.filter((e) => e.type === 'message.received').length >= 21;
    let listed: { id: string; type: string; data: Record<string, unknown> }[] = [];
    await expect.poll(async () => {
      listed = (await d.api('GET', '/v1/events?limit=100', undefined, d.liveKey)).data;
      return wanted(listed);
    }, { timeout: 30_000 }).toBe(true);
    const plain = listed.find((e) => e.type === 'message.received' && e.data.subject === 'Plain order')!;
    const over = listed.find((e) => e.type === 'message.received.over_limit')!;
    expect(plain.data).toMatchObject({ from: 'shop@store.test', to: `agent@${D}` });
    for (const k of ['from_name', 'plus_address', 'in_reply_to_message_id', 'rfc_message_id']) expect(plain.data, k).not.toHaveProperty(k);
    expect(over.data).toMatchObject({ over_limit: 'plus_address_limit', plus_address: expect.any(String) });
    for (const k of ['subject', 'body_text_excerpt', 'thread_id']) expect(over.data, k).not.toHaveProperty(k);
    expect(nulls(listed)).toEqual([]);

    // Retrieve: the same objects.
    for (const e of [plain, over]) expect(await d.api('GET', `/v1/events/${e.id}`, undefined, d.liveKey)).toEqual(e);
    // The live stream: the same objects.
    await expect.poll(() => streamed.some((e) => e.id === over.id), { timeout: 15_000 }).toBe(true);
    for (const e of [plain, over]) expect(streamed.find((s) => s.id === e.id)).toEqual(e);
    expect(nulls(streamed)).toEqual([]);
    ac.abort();
    await reading;
    // A webhook: the same objects, as signed and delivered.
    await expect.poll(() => sink.requests.map((r) => r.json().id), { timeout: 30_000 }).toEqual(expect.arrayContaining([plain.id, over.id]));
    const hooked = sink.requests.map((r) => r.json());
    for (const e of [plain, over]) expect(hooked.find((h) => h.id === e.id)).toEqual(e);
    expect(nulls(hooked)).toEqual([]);
  }, 120_000);
});
