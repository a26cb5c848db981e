import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { TestRelay } from '../../helpers/relay.js';
import { closeRelay } from '../../../src/services/outbound-delivery.js';

let t: TestApp;
let relay: TestRelay;
beforeAll(async () => {
  relay = await TestRelay.start();
  t = await createTestApp({ relay: relay.url, pricePerMessage: '0.001' });
});
afterAll(async () => {
  closeRelay(t.ctx);
  await t.close();
  await relay.stop();
});

const send = (body: unknown, opts: { key?: string; headers?: Record<string, string> } = {}) =>
  t.req('POST', '/v1/messages', { body, ...opts });

describe('POST /v1/messages (live, through a real relay)', () => {
  it('sends on the wire with an explicit envelope and answers the short set', async () => {
    relay.messages.length = 0;
    const r = await send({ to: 'bob@example.com', cc: ['Carol <carol@example.org>'], bcc: 'dave@example.net', subject: 'Invoice 42', body_text: 'Your invoice is attached.', tags: [{ name: 'kind', value: 'invoice' }], metadata: { order: '42' } });
    expect(r.status, r.text).toBe(201);
    expect(r.body.status).toBe('sent');
    expect(r.body.test_mode).toBe(false);
    expect(r.body.cost_usd).toBe(0.001);
    expect(r.body.to).toEqual(['bob@example.com']);
    expect(r.body.thread_id).toMatch(/^thrd_/);
    expect(r.body).not.toHaveProperty('cc');
    expect(r.body).not.toHaveProperty('transport_message_id');
    expect(r.headers['ratelimit-limit']).toBe('100');
    expect(r.headers['ratelimit-policy']).toBe('100;w=10');
    expect(Number(r.headers['ratelimit-remaining'])).toBeLessThan(100);
    expect(r.headers['ratelimit-reset']).toMatch(/^\d+$/);
    // One copy per recipient (each with its own unsubscribe link), one envelope recipient each.
    expect(relay.messages.map((m) => m.rcptTo).sort()).toEqual([['bob@example.com'], ['carol@example.org'], ['dave@example.net']]);
    const ids = new Set<string>();
    for (const wire of relay.messages) {
      // Each copy's envelope sender is its own signed return path (docs/outbound.md → Return path); From is the agent.
      expect(wire.mailFrom).toMatch(/^bounces\+[0-9a-z]{47}@local\.mailagent\.localhost$/);
      const parsed = await simpleParser(wire.raw);
      expect(parsed.from?.value[0].address).toBe('agent@local.mailagent.localhost');
      expect(parsed.subject).toBe('Invoice 42');
      expect(parsed.headers.has('bcc')).toBe(false);
      expect(parsed.text?.trim()).toBe('Your invoice is attached.');
      ids.add(parsed.messageId!);
      const token = /^List-Unsubscribe: <[^>]*\/v1\/unsubscribe\/([^.>]+)\.[^>]+>\r?$/m.exec(wire.raw.toString())![1];
      expect(Buffer.from(token, 'base64url').toString()).toMatch(new RegExp(`\\|${wire.rcptTo[0]}$`));
      // The Bcc recipient's address is in no one's copy but its own.
      if (wire.rcptTo[0] !== 'dave@example.net') expect(wire.raw.toString()).not.toContain('dave@example.net');
    }
    expect(ids.size).toBe(1); // the same message: one Message-ID

    const full = await t.req('GET', `/v1/messages/${r.body.id}`);
    expect(full.status).toBe(200);
    expect(full.body.cc).toEqual(['Carol <carol@example.org>']);
    expect(full.body.transport_message_id).toBe('RELAY1');
    expect(full.body.metadata).toEqual({ order: '42' });
    expect(full.body.sent_at).toBeTruthy();
    expect(full.body.body_text).toBe('Your invoice is attached.');
    expect(full.body.references).toEqual([]);
    expect(full.body.attachments).toEqual([]);

    const ev = await t.ctx.db.selectFrom('events').selectAll().where('type', '=', 'message.sent').execute();
    expect(ev.some((e) => JSON.parse(e.payload).source_message_id === r.body.id && e.test_mode === 0)).toBe(true);
  });

  it('validates every field, naming the param', async () => {
    const cases: [unknown, number, string, string | null][] = [
      [{ to: 'a@x.com, b@y.com', subject: 's', body_text: 'b' }, 400, 'invalid_param_value', 'to'],
      [{ to: ['ok@x.com', 'a@x.com, b@y.com'], subject: 's', body_text: 'b' }, 400, 'invalid_param_value', 'to[1]'],
      [{ to: ['ok@x.com', 'bad\r\nBcc: evil@x.com'], subject: 's', body_text: 'b' }, 400, 'invalid_param_value', 'to[1]'],
      [{ to: ['ok@x.com'], cc: ['x@y.com', 'nope'], subject: 's', body_text: 'b' }, 400, 'invalid_param_value', 'cc[1]'],
      [{ to: Array.from({ length: 51 }, (_, i) => `u${i}@x.com`), subject: 's', body_text: 'b' }, 400, 'invalid_param_value', 'to'],
      [{ to: 'a@x.com', bcc: Array.from({ length: 51 }, (_, i) => `u${i}@x.com`), subject: 's', body_text: 'b' }, 400, 'invalid_param_value', 'bcc'],
      [{ to: 'a@x.com', subject: 'x'.repeat(999), body_text: 'b' }, 400, 'invalid_param_value', 'subject'],
      [{ to: 'a@x.com', subject: 's', body_text: 'x'.repeat(1_000_001) }, 400, 'invalid_param_value', 'body_text'],
      [{ to: 'a@x.com', subject: 's', body_html: 'x'.repeat(1_000_001) }, 400, 'invalid_param_value', 'body_html'],
      [{ to: 'a@x.com', subject: 's' }, 400, 'missing_field', 'body_text'],
      [{ subject: 's', body_text: 'b' }, 400, 'missing_field', 'to'],
      [{ to: 'a@x.com', body_text: 'b' }, 400, 'missing_field', 'subject'],
      [{ to: 'a@x.com', subject: 's', body_text: 'b', tags: Array.from({ length: 11 }, (_, i) => ({ name: `t${i}`, value: 'v' })) }, 400, 'invalid_param_value', 'tags'],
      [{ to: 'a@x.com', subject: 's', body_text: 'b', metadata: { ['k'.repeat(65)]: 'v' } }, 400, 'invalid_param_value', null],
      [{ to: 'a@x.com', subject: 's', body_text: 'b', metadata: { k: 'v'.repeat(501) } }, 400, 'invalid_param_value', 'metadata.k'],
      [{ to: 'a@x.com', subject: 's', body_text: 'b', attachments: Array.from({ length: 11 }, () => ({ filename: 'a.txt', content_base64: 'aGk=' })) }, 400, 'invalid_param_value', 'attachments'],
      [{ to: 'a@x.com', subject: 's', body_text: 'b', attachments: [{ filename: 'a.txt', content_base64: '***' }] }, 400, 'invalid_param_value', 'attachments[0].content_base64'],
      [{ to: 'a@x.com', subject: 's', body_text: 'b', scheduled_at: 'tomorrow' }, 400, 'invalid_param_value', 'scheduled_at'],
      [{ to: 'a@x.com', subject: 's', body_text: 'b', agent: 'nobody' }, 404, 'agent_not_found', 'agent'],
      [{ to: 'a@x.com', subject: 's', body_text: 'b', pool_hint: 'dirty' }, 400, 'invalid_param_value', 'pool_hint'],
    ];
    for (const [body, status, code, param] of cases) {
      const r = await send(body);
      expect(r.status, JSON.stringify(body).slice(0, 120) + ' ' + r.text).toBe(status);
      expect(r.body.error.code).toBe(code);
      if (param) expect(r.body.error.param).toBe(param);
    }
    // 25 MB decoded in total → invalid_field.
    const big = Buffer.alloc(13 * 1024 * 1024, 1).toString('base64');
    const r = await send({ to: 'a@x.com', subject: 's', body_text: 'b', attachments: [{ filename: 'a.bin', content_base64: big }, { filename: 'b.bin', content_base64: big }] });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_field');
    expect(r.body.error.param).toBe('attachments');
    // Nothing was stored by any refusal.
    const n = await t.ctx.db.selectFrom('sent_messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(1);
  });

  it('one schema, one refusal: POST, a batch item and a draft get the same code, param and message', async () => {
    const base = { agent: 'agent', to: 'a@x.com', subject: 's', body_text: 'b' };
    const cases: [Record<string, unknown>, string, string, RegExp][] = [
      // Checks that moved from services/send.ts into the contract's SendRequest schema.
      [{ to: Array.from({ length: 51 }, (_, i) => `u${i}@x.com`) }, 'invalid_param_value', 'to', /has 51 items; at most 50 are allowed/],
      [{ cc: 7 }, 'invalid_param_value', 'cc', /must be a string or an array/],
      [{ subject: 5 }, 'invalid_param_value', 'subject', /must be a string/],
      [{ tags: [{ name: 'n' }] }, 'missing_field', 'tags[0].value', /value/],
      [{ references: ['<ok@x.example>', 'two words'] }, 'invalid_param_value', 'references[1]', /is not a Message-ID/],
      [{ attachments: [{ filename: 'a.pdf', content_base64: 'aGk=', content_type: 'pdf' }] }, 'invalid_param_value', 'attachments[0].content_type', /is not a MIME type such as application\/pdf/],
      [{ metadata: { ['k'.repeat(65)]: 'v' } }, 'invalid_param_value', `metadata.${'k'.repeat(65)}`, /metadata keys must be 1 to 64 characters long/],
      [{ metadata: { k: 'v'.repeat(501) } }, 'invalid_param_value', 'metadata.k', /is 501 characters long; at most 500 are allowed/],
      [{ scheduled_at: '2026-05-01' }, 'invalid_param_value', 'scheduled_at', /ISO 8601 timestamp with a time zone/],
      // Checks the schema cannot express, still in the service.
      [{ attachments: [{ filename: 'a.txt' }] }, 'missing_field', 'attachments[0].content_base64', /content_base64/],
      [{ to: ['ok@x.com', 'a@x.com, b@y.com'] }, 'invalid_param_value', 'to[1]', /not one valid email address/],
    ];
    for (const [patch, code, param, message] of cases) {
      const body = { ...base, ...patch };
      const r = await send(body, { key: t.testKey });
      const label = JSON.stringify(patch).slice(0, 80);
      expect(r.status, `${label} ${r.text}`).toBe(400);
      expect(r.body.error, label).toMatchObject({ code, param });
      expect(r.body.error.message, label).toMatch(message);
      // A batch item is checked by the service against the same schema: same refusal, inline.
      const b = await t.req('POST', '/v1/messages/batch', { key: t.testKey, body: [base, body] });
      expect(b.status, `${label} ${b.text}`).toBe(201);
      expect(b.body.data[0].id, label).toMatch(/^msg_/);
      expect({ ...b.body.data[1].error, request_id: undefined }, label).toEqual({ ...r.body.error, request_id: undefined });
    }
  });

  it('a draft with cleared (null) bodies and null in_reply_to_message_id is checked as a send without them', async () => {
    const d = await t.req('POST', '/v1/drafts', { key: t.testKey, body: { agent: 'agent', to: 'a@x.com', subject: 's', body_text: null, body_html: null, in_reply_to_message_id: null } });
    expect(d.status, d.text).toBe(201);
    const u = await t.req('PATCH', `/v1/drafts/${d.body.id}`, { key: t.testKey, body: { body_text: 'now a body' } });
    expect(u.status, u.text).toBe(200);
    const s = await t.req('POST', `/v1/drafts/${d.body.id}/send`, { key: t.testKey, body: {} });
    expect(s.status, s.text).toBe(200);
    expect(s.body.status).toBe('sent');
    // A draft's metadata is held to the send's limits when it is written.
    const bad = await t.req('POST', '/v1/drafts', { key: t.testKey, body: { agent: 'agent', metadata: { k: 'v'.repeat(501) } } });
    expect(bad.body.error).toMatchObject({ code: 'invalid_param_value', param: 'metadata.k' });
  });

  it('tolerates unknown fields and accepts compat aliases (from, text/html, to as string, reply_to)', async () => {
    relay.messages.length = 0;
    const r = await send({ from: 'Acme Billing <agent@elsewhere.example>', to: 'bob@example.com', subject: 'Aliases', text: 'plain', html: '<p>rich</p>', reply_to: 'help@acme.example', unknown_field: { x: 1 } });
    expect(r.status, r.text).toBe(201);
    expect(r.body.from).toBe('agent@local.mailagent.localhost');
    const p = await simpleParser(relay.messages[0].raw);
    expect(p.from?.value[0].address).toBe('agent@local.mailagent.localhost');
    expect(p.from?.value[0].name).toBe('Acme Billing');
    expect(p.replyTo?.value[0].address).toBe('help@acme.example');
    expect(p.html).toContain('<p>rich</p>');
  });

  it('makes header injection impossible on the wire', async () => {
    relay.messages.length = 0;
    const evil = 'Hello\r\nBcc: victim@evil.example\r\nX-Injected: yes';
    const r = await send({ to: 'bob@example.com', subject: evil, body_text: 'b', tags: [{ name: 'n', value: 'v' }], attachments: [{ filename: 'x\r\nX-Evil: 1.txt', content_base64: 'aGk=', content_type: 'text/plain' }], from: 'Eve\r\nX-From-Inject: 1 <agent@x.example>' });
    // The display name with CR/LF is not one mailbox: refused outright.
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('from');
    // Bidi overrides in the display name ("Bank \u202eytiruces\u202c" shows as "Bank security") are
    // refused as for an agent's display_name (an outside tester's send went out with them).
    const bidi = await send({ to: 'bob@example.com', subject: 's', body_text: 'b', from: '"Bank \u202eytiruces\u202c" <agent@local.mailagent.localhost>' });
    expect(bidi.status, bidi.text).toBe(400);
    expect(bidi.body.error.param).toBe('from');
    // A subject with CR/LF is refused as well (the wire would fold it to one line, and the stored
    // message and its events would then say another subject than was sent).
    const subj = await send({ to: 'bob@example.com', subject: evil, body_text: 'b' });
    expect(subj.status, subj.text).toBe(400);
    expect(subj.body.error.param).toBe('subject');
    // So is an attachment's file name with CR/LF (it would be folded into the part's headers, and
    // the stored message would name another file than the recipient sees).
    const name = await send({ to: 'bob@example.com', subject: 'Hello', body_text: 'b', attachments: [{ filename: 'x\r\nX-Evil: 1.txt', content_base64: 'aGk=', content_type: 'text/plain' }] });
    expect(name.status, name.text).toBe(400);
    expect(name.body.error).toMatchObject({ code: 'invalid_param_value', param: 'attachments[0].filename' });
    const r2 = await send({ to: 'bob@example.com', subject: 'Hello', body_text: 'b', attachments: [{ filename: 'x X-Evil: 1.txt', content_base64: 'aGk=', content_type: 'text/plain' }] });
    expect(r2.status, r2.text).toBe(201);
    const wire = relay.messages[0];
    expect(wire.rcptTo).toEqual(['bob@example.com']);
    const text = wire.raw.toString('utf8');
    expect(text).not.toMatch(/^Bcc:/im);
    expect(text).not.toMatch(/^X-Injected:/im);
    expect(text).not.toMatch(/^X-Evil:/im);
    const p = await simpleParser(wire.raw);
    expect(p.headers.has('x-injected')).toBe(false);
    expect(p.subject).toBe('Hello');
    const ct = await send({ to: 'bob@example.com', subject: 's', body_text: 'b', attachments: [{ filename: 'a.txt', content_base64: 'aGk=', content_type: 'text/plain\r\nX-Evil: 1' }] });
    expect(ct.status).toBe(400);
    expect(ct.body.error.param).toBe('attachments[0].content_type');
    const ref = await send({ to: 'bob@example.com', subject: 's', body_text: 'b', references: ['<a@b>\r\nX-Evil: 1'] });
    expect(ref.status).toBe(400);
    expect(ref.body.error.param).toBe('references[0]');
  });

  it('raw download is a valid .eml that mailparser reads back', async () => {
    const r = await send({ to: ['bob@example.com'], cc: ['carol@example.org'], bcc: ['dave@example.net'], subject: 'Report ü', body_text: 'See attached.', body_html: '<b>See attached.</b>', attachments: [{ filename: 'report.csv', content_base64: Buffer.from('a,b\n1,2\n').toString('base64'), content_type: 'text/csv' }] });
    expect(r.status, r.text).toBe(201);
    const raw = await t.req('GET', `/api/v1/messages/${r.body.id}/raw`);
    expect(raw.status).toBe(200);
    expect(raw.headers['content-type']).toContain('message/rfc822');
    expect(raw.headers['content-disposition']).toBe(`attachment; filename="${r.body.id}.eml"`);
    const p = await simpleParser(Buffer.from(raw.text, 'utf8'));
    expect(p.subject).toBe('Report ü');
    expect((p.to as { value: { address: string }[] }).value[0].address).toBe('bob@example.com');
    expect((p.cc as { value: { address: string }[] }).value[0].address).toBe('carol@example.org');
    expect((p.bcc as { value: { address: string }[] }).value[0].address).toBe('dave@example.net');
    expect(p.text?.trim()).toBe('See attached.');
    expect(p.html).toContain('<b>See attached.</b>');
    expect(p.attachments[0].filename).toBe('report.csv');
    expect(p.attachments[0].content.toString()).toBe('a,b\n1,2\n');
    expect((await t.req('GET', '/v1/messages/msg_nope/raw')).status).toBe(404);
    const got = await t.req('GET', `/v1/messages/${r.body.id}`);
    expect(got.body.attachments).toMatchObject([{ filename: 'report.csv', content_type: 'text/csv', size: 8 }]);
  });

  it('relay refusal → 502 and the message recorded as failed; unreachable → 503 + Retry-After and nothing recorded', async () => {
    relay.mode = 'refuse';
    const r = await send({ to: 'bob@example.com', subject: 'Refused', body_text: 'b' });
    relay.mode = 'accept';
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('upstream_error');
    const id = /msg_[0-9a-z]+/.exec(r.body.error.message)![0];
    const failed = await t.req('GET', `/v1/messages/${id}`);
    expect(failed.body.status).toBe('failed');
    const count = async () => Number((await t.ctx.db.selectFrom('sent_messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    closeRelay(t.ctx);
    await relay.stop();
    try {
      const u = await send({ to: 'bob@example.com', subject: 'Down', body_text: 'b' });
      expect(u.status).toBe(503);
      expect(u.body.error.code).toBe('upstream_unavailable');
      // Nothing listens on the relay port: refused outright, so a short Retry-After (not 30 s).
      expect(u.headers['retry-after']).toBe('5');
      expect(await count()).toBe(before);
      const log = await t.ctx.db.selectFrom('send_log').selectAll().execute();
      expect(log.every((l) => l.message_id !== id)).toBe(true);
    } finally {
      await relay.restart();
    }
    const again = await send({ to: 'bob@example.com', subject: 'Back', body_text: 'b' });
    expect(again.status, again.text).toBe(201);
    // A relay that answers and defers (4xx) is busy, not down: the longer Retry-After stays.
    relay.mode = 'defer';
    try {
      const d = await send({ to: 'bob@example.com', subject: 'Deferred', body_text: 'b' });
      expect(d.status).toBe(503);
      expect(d.headers['retry-after']).toBe('30');
    } finally {
      relay.mode = 'accept';
    }
  });

  it('test mode: stored, event with test_mode, nothing on the wire, no cost; test address rules', async () => {
    relay.messages.length = 0;
    const r = await send({ to: 'anyone@example.com', subject: 'Hello', body_text: 'b' }, { key: t.testKey });
    expect(r.status, r.text).toBe(201);
    expect(r.body.test_mode).toBe(true);
    expect(r.body.cost_usd).toBe(0);
    expect(relay.messages).toHaveLength(0);
    const bad = await send({ to: 'someone@test.mailagent.localhost', subject: 's', body_text: 'b' }, { key: t.testKey });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('unknown_test_address');
    expect(bad.body.error.param).toBe('to[0]');
    const ok = await send({ to: 'reply@test.mailagent.localhost', subject: 's', body_text: 'b' }, { key: t.testKey });
    expect(ok.status).toBe(201);
  });

  it('no relay configured: a live send outside answers 503 saying how to configure --relay', async () => {
    const t2 = await createTestApp();
    try {
      const r = await t2.req('POST', '/v1/messages', { body: { to: 'bob@example.com', subject: 's', body_text: 'b' } });
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('upstream_unavailable');
      expect(r.body.error.message).toContain('--relay');
      expect(r.headers['retry-after']).toBe('5');
      const tm = await t2.req('POST', '/v1/messages', { key: t2.testKey, body: { to: 'bob@example.com', subject: 's', body_text: 'b' } });
      expect(tm.status).toBe(201);
    } finally {
      await t2.close();
    }
  });
});
