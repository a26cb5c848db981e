import { describe, expect, it } from 'vitest';
import { bodiesUnread, headersOnly, parseAndExtract, PARSE_CUT_SHORT } from '../../../src/mail/parse.js';

/** Session 14: which parsed messages the inbound path fails closed (services/inbound.ts, services/classify.ts). */
const head = ['From: a@b.example', 'To: c@d.example', 'Subject: hi', 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="BB"', ''];

function manyParts(n: number): Buffer {
  const lines = [...head, '--BB', 'Content-Type: text/plain', '', 'Hello there.', ''];
  for (let i = 0; i < n; i++) lines.push('--BB', 'Content-Type: application/octet-stream', `Content-Disposition: attachment; filename="a${i}.bin"`, '', 'x', '');
  lines.push('--BB--', '');
  return Buffer.from(lines.join('\r\n'));
}

describe('bodiesUnread', () => {
  it('a message over 1,000 MIME parts is not parsed: its text is raw MIME', async () => {
    const p = await parseAndExtract(manyParts(1100));
    expect(p.parsed.attachments).toEqual([]);
    expect(p.parsed.text).toContain('Content-Disposition: attachment');
    expect(bodiesUnread(p.parsed)).toBe(true);
    expect(p.truncated).toBe(true);
  });
  it('1,000 parts and fewer are parsed as before', async () => {
    const p = await parseAndExtract(manyParts(900));
    expect(p.parsed.attachments.length).toBe(900);
    expect(bodiesUnread(p.parsed)).toBe(false);
  });
  it('headers only (a parse cut at the budget) is unread; an ordinary message is not', async () => {
    expect(bodiesUnread(headersOnly(manyParts(3), `${PARSE_CUT_SHORT} over its 5000 ms budget; headers and body bytes kept only`))).toBe(true);
    const ok = await parseAndExtract(Buffer.from('From: a@b.example\r\nTo: c@d.example\r\nSubject: hi\r\n\r\nHello.\r\n'));
    expect(bodiesUnread(ok.parsed)).toBe(false);
  });
});
