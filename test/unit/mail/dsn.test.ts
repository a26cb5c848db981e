import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseMessage } from '../../../src/mail/parse.js';
import { parseContentType, readReport } from '../../../src/mail/dsn.js';
import { ROOT } from '../../helpers/daemon.js';

const V = { agent: 'agent@local.mailagent.localhost', recipient: 'bob@example.org', messageId: 'msg_01abc@local.mailagent.localhost' };

function load(name: string): Buffer {
  const text = readFileSync(join(ROOT, 'test', 'fixtures', name), 'utf8')
    .replaceAll('{{AGENT}}', V.agent).replaceAll('{{RETURN_PATH}}', V.agent).replaceAll('{{RECIPIENT}}', V.recipient).replaceAll('{{MESSAGE_ID}}', V.messageId);
  return Buffer.from(text.replace(/\r?\n/g, '\r\n'));
}
const crlf = (s: string) => Buffer.from(s.replace(/\r?\n/g, '\r\n'));
const report = async (raw: Buffer, mailFrom = '') => readReport(raw, await parseMessage(raw), mailFrom);

describe('readReport: delivery-status notifications (RFC 3464)', () => {
  it('Postfix: recipient, action, status, diagnostic, MTAs and the returned copy\'s Message-ID', async () => {
    const r = await report(load('bounce-postfix-user-unknown.eml'));
    expect(r).toMatchObject({ type: 'delivery-status', format: 'rfc3464', reportingMta: 'mx1.example.net', originalMessageIds: [V.messageId], originalRecipients: [V.recipient] });
    expect(r!.recipients).toEqual([{
      originalRecipient: V.recipient, finalRecipient: V.recipient, action: 'failed', status: '5.1.1', remoteMta: 'mx.example.org',
      diagnosticCode: `smtp; 550 5.1.1 <${V.recipient}>: Recipient address rejected: User unknown in virtual mailbox table`,
    }]);
  });

  it('Gmail: nested multipart notice, folded Diagnostic-Code, text/rfc822-headers original', async () => {
    const r = await report(load('bounce-gmail-no-such-account-headers-only.eml'));
    expect(r).toMatchObject({ format: 'rfc3464', reportingMta: 'googlemail.com' });
    expect(r!.originalMessageIds[0]).toBe(V.messageId);
    expect(r!.recipients[0]).toMatchObject({ finalRecipient: V.recipient, originalRecipient: null, action: 'failed', status: '5.1.1' });
    expect(r!.recipients[0].diagnosticCode).toMatch(/^smtp; 550-5\.1\.1 The email account .* unnecessary spaces\. - gsmtp$/);
  });

  it('Postfix delay warning: Action delayed, 4.4.1', async () => {
    const r = await report(load('bounce-postfix-delayed-still-retrying.eml'));
    expect(r!.recipients[0]).toMatchObject({ action: 'delayed', status: '4.4.1' });
    expect(r!.originalMessageIds).toEqual([V.messageId]);
  });

  it('several recipients, base64-encoded report part, original only in In-Reply-To', async () => {
    const ds = Buffer.from([
      'Reporting-MTA: dns; relay.example.net', '',
      'Final-Recipient: rfc822; a@example.org', 'Action: failed', 'Status: 5.2.1', '',
      'Final-Recipient: rfc822;<B@Example.org>', 'Action: delayed', 'Status: 4.2.2', '',
      'Final-Recipient: rfc822; c@example.org', 'Action: delivered', 'Status: 2.0.0', '',
    ].join('\r\n')).toString('base64').replace(/(.{76})/g, '$1\r\n');
    const raw = crlf(`From: postmaster@relay.example.net
To: ${V.agent}
Subject: Delivery report
In-Reply-To: <${V.messageId}>
Content-Type: multipart/report; report-type="delivery-status"; boundary=BB

--BB
Content-Type: text/plain

See the report.
--BB
Content-Type: message/delivery-status
Content-Transfer-Encoding: base64

${ds}
--BB--
`);
    const r = await report(raw);
    expect(r!.originalMessageIds).toEqual([V.messageId]);
    expect(r!.recipients.map((x) => [x.finalRecipient, x.action, x.status])).toEqual([
      ['a@example.org', 'failed', '5.2.1'], ['b@example.org', 'delayed', '4.2.2'], ['c@example.org', 'delivered', '2.0.0'],
    ]);
  });

  it('a multipart/report without a readable status part is not a report (and never throws)', async () => {
    for (const body of ['no boundary here', '--XX\r\nContent-Type: text/plain\r\n\r\nhello\r\n--XX--', '--XX\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; x\r\n--XX--']) {
      const raw = crlf(`From: MAILER-DAEMON@x.example\nSubject: Returned mail\nContent-Type: multipart/report; report-type=delivery-status; boundary=XX\n\n${body}\n`);
      expect(await report(raw, 'someone@x.example')).toBeNull();
    }
  });
});

describe('readReport: non-standard bounces', () => {
  it('qmail: the address in the notice, the status code, the original quoted below the marker', async () => {
    const r = await report(load('bounce-qmail-nonstandard-quoted-original.eml'));
    expect(r).toMatchObject({ format: 'non-standard', reportingMta: 'mail.example.com', originalMessageIds: [V.messageId], mentionedAddresses: [V.recipient] });
    expect(r!.recipients[0]).toMatchObject({ finalRecipient: V.recipient, action: 'failed', status: '5.1.1' });
  });

  it('Exim: "The following address(es) failed", copy after the dashed marker, SMTP code without enhanced status', async () => {
    const raw = crlf(`From: Mail Delivery System <Mailer-Daemon@mx.example.com>
To: ${V.agent}
Subject: Mail delivery failed: returning message to sender

This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  ${V.recipient}
    host mx.example.org [192.0.2.1]
    SMTP error from remote mail server after RCPT TO:<${V.recipient}>:
    550 No such mailbox

------ This is a copy of the message, including all the headers. ------

Return-path: <${V.agent}>
From: ${V.agent}
To: ${V.recipient}
Message-ID: <${V.messageId}>
Subject: hello

hi
`);
    const r = await report(raw, '');
    expect(r!.originalMessageIds).toEqual([V.messageId]);
    expect(r!.recipients).toHaveLength(1);
    expect(r!.recipients[0]).toMatchObject({ finalRecipient: V.recipient, action: 'failed', status: '5.0.0', diagnosticCode: '550 No such mailbox' });
  });

  it('a delay warning in prose is delayed, not failed', async () => {
    const raw = crlf(`From: MAILER-DAEMON@mx.example.com
To: ${V.agent}
Subject: Warning: message delayed
In-Reply-To: <${V.messageId}>

Your message to <${V.recipient}> has not yet been delivered. We will continue to retry for 4 days.
`);
    expect((await report(raw))!.recipients[0]).toMatchObject({ finalRecipient: V.recipient, action: 'delayed' });
  });

  it('ordinary mail is not a report, even with a bounce-like subject from a person', async () => {
    expect(await report(crlf(`From: alice@example.org\nTo: ${V.agent}\nSubject: Delivery failure on our side\n\nOur courier failed to deliver parcel 12, sorry!\n`), 'alice@example.org')).toBeNull();
    expect(await report(crlf(`From: bob@example.org\nTo: ${V.agent}\nSubject: Lunch?\n\nAre you free at noon?\n`), 'bob@example.org')).toBeNull();
  });
});

describe('readReport: feedback reports (RFC 5965 ARF)', () => {
  it('Yahoo abuse report: Feedback-Type, User-Agent, Original-Rcpt-To and the original Message-ID', async () => {
    const r = await report(load('complaint-arf-yahoo-abuse.eml'), 'feedbackloop@yahoo.example');
    expect(r).toMatchObject({ type: 'feedback', format: 'rfc5965', feedbackType: 'abuse', userAgent: 'Yahoo!-Mail-Feedback/2.0', originalMessageIds: [V.messageId] });
    expect(r!.recipients.map((x) => x.originalRecipient)).toEqual([V.recipient]);
  });

  it('a redacted report (no Original-Rcpt-To, headers only) still names the original', async () => {
    const raw = crlf(`From: fbl@isp.example
To: ${V.agent}
Subject: Abuse report
Content-Type: multipart/report; report-type=feedback-report; boundary="r"

--r
Content-Type: text/plain

An abuse report.
--r
Content-Type: message/feedback-report

Feedback-Type: not-spam
Version: 1

--r
Content-Type: text/rfc822-headers

From: ${V.agent}
To: redacted@isp.example
Message-ID: <${V.messageId}>
--r--
`);
    const r = await report(raw, 'fbl@isp.example');
    expect(r).toMatchObject({ type: 'feedback', feedbackType: 'not-spam', recipients: [], originalMessageIds: [V.messageId], originalRecipients: ['redacted@isp.example'] });
  });
});

describe('parseContentType', () => {
  it('reads quoted and unquoted parameters case-insensitively', () => {
    expect(parseContentType('Multipart/Report; Report-Type="delivery-status";\tboundary=abc')).toEqual({ type: 'multipart/report', params: { 'report-type': 'delivery-status', boundary: 'abc' } });
    expect(parseContentType(undefined)).toEqual({ type: 'text/plain', params: {} });
  });
});
