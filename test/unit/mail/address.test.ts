import { describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { parseMailbox, normalizeAddress, headerSafe, domainMatches, bareAddress, bareDomain } from '../../../src/mail/address.js';
import { senderFilter } from '../../../src/client/sender.js';
import { normalizeAddress as suppressionKey } from '../../../src/services/suppression.js';
import { splitPlus } from '../../../src/services/plus-addresses.js';
import { aligned } from '../../../src/services/sender-trust.js';
import { buildMime } from '../../../src/mail/mime-build.js';

describe('parseMailbox: exactly one address per item', () => {
  it.each([
    ['bob@example.com', 'bob@example.com', null],
    ['  Bob@Example.COM ', 'Bob@example.com', null],
    ['Bob Smith <bob@example.com>', 'bob@example.com', 'Bob Smith'],
    ['"Smith, Bob" <bob@example.com>', 'bob@example.com', 'Smith, Bob'],
    ['o\'brien+tag@münchen.de', "o'brien+tag@xn--mnchen-3ya.de", null],
  ])('accepts %s', (raw, address, name) => {
    expect(parseMailbox(raw)).toEqual({ address, name });
  });
  it.each([
    'a@x.com, b@y.com', 'a@x.com;b@y.com', 'bob', '@x.com', 'bob@', 'bob@localhost', 'a..b@x.com', '.a@x.com',
    'bob@x.com\r\nBcc: evil@x.com', 'bob@x.com\n', 'Bob, Eve <bob@x.com>', 'Bob <bob@x.com>, <eve@x.com>', '<a@x.com> <b@y.com>',
    'undisclosed-recipients:;', 'Group: a@x.com;', 'bob@-x.com', 'bob@x_y.com', 'x'.repeat(65) + '@x.com', 'bob @x.com',
  ])('refuses %j', (raw) => {
    expect(parseMailbox(raw)).toBeNull();
  });
  it('normalizeAddress and helpers', () => {
    expect(normalizeAddress('a@b.co')).toBe('a@b.co');
    expect(headerSafe('a\r\nb\tc\u0000d')).toBe('a b\tc d');
    expect(domainMatches('mail.partner.example', ['partner.example'])).toBe(true);
    expect(domainMatches('evilpartner.example', ['partner.example'])).toBe(false);
  });

  it('a trailing dot (the DNS root) is the same domain in every comparison', () => {
    expect(bareDomain(' Example.COM. ')).toBe('example.com');
    expect(bareAddress('Bob@Example.com.')).toBe('Bob@example.com');
    expect(domainMatches('evil.example.', ['evil.example'])).toBe(true);
    expect(domainMatches('mail.evil.example', ['evil.example.'])).toBe(true);
    expect(suppressionKey('Bob@Example.com.')).toBe('bob@example.com');
    expect(splitPlus('agent+x@Local.Mailagent.Localhost.')).toMatchObject({ base: 'agent@local.mailagent.localhost', domain: 'local.mailagent.localhost', tag: 'x' });
    expect(aligned('partner.test.', 'mail.partner.test')).toBe(true);
    // wait --from and the MCP tools' from: either side may carry the dot.
    expect(senderFilter('accounts.example.com')!('codes@accounts.example.com.')).toBe(true);
    expect(senderFilter('accounts.example.com.')!('codes@accounts.example.com')).toBe(true);
    expect(senderFilter('codes@example.com')!('codes@example.com.')).toBe(true);
    expect(senderFilter('example.com')!('codes@example.com.attacker.net.')).toBe(false);
  });
});

describe('buildMime', () => {
  it('builds a message mailparser reads back, with no injectable header', async () => {
    const raw = await buildMime({
      from: { address: 'agent@x.example', name: 'Agent\r\nX-Evil: 1' }, to: [{ address: 'bob@y.example', name: null }],
      bcc: [{ address: 'hidden@y.example', name: null }], subject: 'Hi\r\nX-Injected: 1', text: 'body', html: '<p>body</p>',
      attachments: [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('hello') }],
      messageId: '<id1@x.example>', inReplyTo: 'prev@x.example', references: ['<r1@x>', 'prev@x.example'], date: new Date('2026-01-01T00:00:00Z'),
      extraHeaders: { 'List-Unsubscribe': '<https://x.example/u>\r\nX-Evil: 2', 'Bad Header': 'x' },
    });
    const text = raw.toString();
    expect(text).not.toMatch(/^X-Evil:/im);
    expect(text).not.toMatch(/^X-Injected:/im);
    expect(text).not.toMatch(/^Bcc:/im);
    const p = await simpleParser(raw);
    expect(p.subject).toBe('Hi X-Injected: 1');
    expect(p.messageId).toBe('<id1@x.example>');
    expect(p.inReplyTo).toBe('<prev@x.example>');
    expect(p.attachments[0].content.toString()).toBe('hello');
    expect(text).toMatch(/^List-Unsubscribe: <https:\/\/x.example\/u> X-Evil: 2/m);
    const kept = await simpleParser(await buildMime({ from: { address: 'a@x.example', name: null }, to: [], bcc: [{ address: 'hidden@y.example', name: null }], keepBcc: true, subject: 's', text: 't', messageId: 'm@x', date: new Date() }));
    expect((kept.bcc as { value: { address: string }[] }).value[0].address).toBe('hidden@y.example');
  });
});
