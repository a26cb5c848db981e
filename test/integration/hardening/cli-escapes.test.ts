import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { neutralize } from '../../../src/cli/output.js';

// Issue #10 item 10: a hostile subject and body received over real SMTP, read back with the real
// CLI (bin/mailagent from dist/) against a real daemon (a child process).
const HOSTILE = 'Invoice \x1b]0;pwned\x07\x1b[2J\x1b[31mred\x9b1m \u202etxt.exe\u202c back\x7f\x08\rover';
// Control characters a terminal would obey (tab and LF are allowed only where they belong).
const OBEYED = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let d: TestDaemon;
let id: string;
let smtpPort: number;
let agentEmail: string;

/** One message over SMTP; resolves with every reply the server sent. */
function smtpSend(port: number, to: string, raw: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    const steps = ['EHLO evil.example', 'MAIL FROM:<evil@example.com>', `RCPT TO:<${to}>`, 'DATA', raw.replace(/\r?\n/g, '\r\n') + '\r\n.', 'QUIT'];
    let buf = '';
    const replies: string[] = [];
    sock.setEncoding('utf8');
    sock.on('data', (chunk: string) => {
      buf += chunk;
      let m: RegExpExecArray | null;
      while ((m = /^(?:\d{3}-[^\n]*\n)*\d{3}(?: [^\n]*)?\r?\n/.exec(buf))) {
        buf = buf.slice(m[0].length);
        replies.push(m[0].trim());
        const step = steps.shift();
        if (step !== undefined) sock.write(step + '\r\n');
      }
    });
    sock.on('error', reject);
    sock.on('close', () => resolve(replies));
  });
}

beforeAll(async () => {
  d = await startDaemon();
  smtpPort = Number(/ready: API \S+ · smtp \S+?:(\d+)/.exec(d.stderr())?.[1] ?? /:(\d+) · data/.exec(d.stderr())![1]);
  const agent = (await d.api('GET', '/v1/agents')).data[0];
  agentEmail = agent.email;
  // The subject travels RFC 2047-encoded (as a real attacker would send it: 8-bit header bytes
  // are not needed); the body carries the same bytes raw.
  const subject = `=?utf-8?b?${Buffer.from(HOSTILE, 'utf8').toString('base64')}?=`;
  const replies = await smtpSend(smtpPort, agent.email, `From: evil@example.com\nTo: ${agent.email}\nSubject: ${subject}\nContent-Type: text/plain; charset=utf-8\n\nbody ${HOSTILE}\nsecond line\n`);
  expect(replies.some((r) => /^250 .*stored as rcv_/.test(r)), replies.join('\n')).toBe(true);
  const list = await d.api('GET', '/v1/messages/received');
  id = list.data[0].id;
  expect(list.data[0].subject).toContain('\x1b]0;pwned');
}, 60_000);
afterAll(async () => { await d.stop(); });

describe('terminal escape injection through the CLI', () => {
  it('inbox list shows the hostile subject neutralised', async () => {
    const r = await d.cli(['inbox', 'list']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(OBEYED);
    expect(r.stdout).toContain('^[]0;pwned^G^[[2J^[[31mred<U+009B>1m <U+202E>txt.exe<U+202C> back^?^H over'); // the CR became a space when the subject was stored
    expect(r.stdout.trim().split('\n')).toHaveLength(1); // one row, no line break smuggled in
  });

  it('inbox get shows subject and body neutralised, line breaks of the body kept', async () => {
    const r = await d.cli(['inbox', 'get', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.replace(/\t/g, '')).not.toMatch(OBEYED);
    expect(r.stdout).toMatch(/^subject\tInvoice \^\[\]0;pwned/m);
    expect(r.stdout).toContain('body Invoice ^[]0;pwned');
    expect(r.stdout).toContain('\nsecond line');
  });

  it('--json stays byte-exact: the API object, unchanged', async () => {
    const r = await d.cli(['inbox', 'get', id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const api = await d.api('GET', `/v1/messages/received/${id}`);
    expect(r.stdout).toBe(JSON.stringify(api, null, 2) + '\n');
    expect(r.json().subject).toBe(api.subject);
    expect(api.subject).toContain(HOSTILE.slice(0, 20));
  });

  it('an error message echoing hostile input is neutralised on stderr', async () => {
    const r = await d.cli(['inbox', 'get', `rcv_\x1b]0;x\x07`]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toMatch(OBEYED);
  });
});

describe('stored subjects are one line', () => {
  it('an encoded word that decodes to CR, LF or another line break is stored with one space instead; the raw bytes are kept', async () => {
    const decoded = 'Quarterly\r\nBcc: victim@example.com\r\n\r\nreport\nline\u2028sep\u2029para\u0085nel\vvt\fff end';
    const word = `=?utf-8?b?${Buffer.from(decoded, 'utf8').toString('base64')}?=`;
    const replies = await smtpSend(smtpPort, agentEmail, `From: lines@example.com\nTo: ${agentEmail}\nSubject: ${word}\n\nbody\n`);
    const stored = /stored as (rcv_\w+)/.exec(replies.join('\n'))?.[1];
    expect(stored, replies.join('\n')).toBeDefined();
    const msg = await d.api('GET', `/v1/messages/received/${stored}`);
    expect(msg.subject).toBe('Quarterly Bcc: victim@example.com report line sep para nel vt ff end');
    expect(msg.subject).not.toMatch(/[\r\n\v\f\u0085\u2028\u2029]/);
    const listed = (await d.api('GET', '/v1/messages/received')).data.find((m: any) => m.id === stored);
    expect(listed.subject).toBe(msg.subject);
    // The raw message is evidence: its Subject header is the encoded word as it arrived.
    const raw = await fetch(new URL(msg.raw_url, d.url), { headers: { authorization: `Bearer ${d.testKey}` } });
    expect(raw.status).toBe(200);
    expect(await raw.text()).toContain(`Subject: ${word}`);
  });
});

describe('neutralize()', () => {
  it('keeps text, shows controls; SGR only when asked', () => {
    expect(neutralize('plain ünïcödé 😀')).toBe('plain ünïcödé 😀');
    expect(neutralize('a\tb\r\nc')).toBe('a b c');
    expect(neutralize('a\tb\r\nc', { multiline: true })).toBe('a\tb\nc');
    expect(neutralize('\x1b[1mbold\x1b[0m')).toBe('^[[1mbold^[[0m');
    expect(neutralize('\x1b[1mbold\x1b[0m', { keepSgr: true })).toBe('\x1b[1mbold\x1b[0m');
    expect(neutralize('\x1b[2J', { keepSgr: true })).toBe('^[[2J');
    expect(neutralize('\u2066x\u2069\u200f')).toBe('<U+2066>x<U+2069><U+200F>');
  });
});

describe('attachment file names with control characters', () => {
  // CR/LF (a header line of its own), ESC (a colour sequence) and U+202E (a right-to-left
  // override: "invoice\u202Efdp.exe" shows as "invoiceexe.pdf").
  const NAME = 'invoice\r\nX-Evil: 1\x1b[31m\u202Efdp.exe';

  it('received over SMTP: stored, listed and shown with `_` for each control; the raw message keeps the name as it came', async () => {
    const param = `filename*=utf-8''${encodeURIComponent(NAME)}`;
    const raw = [
      'From: files@example.com', `To: ${agentEmail}`, 'Subject: files', 'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"', '', '--b1', 'Content-Type: text/plain', '', 'see the file', '--b1',
      'Content-Type: application/octet-stream', `Content-Disposition: attachment; ${param}`, 'Content-Transfer-Encoding: base64', '',
      Buffer.from('MZ').toString('base64'), '--b1--', '',
    ].join('\n');
    const replies = await smtpSend(smtpPort, agentEmail, raw);
    const stored = /stored as (rcv_\w+)/.exec(replies.join('\n'))?.[1];
    expect(stored, replies.join('\n')).toBeDefined();
    const msg = await d.api('GET', `/v1/messages/received/${stored}`);
    expect(msg.attachments).toHaveLength(1);
    expect(msg.attachments[0].filename).toBe('invoice_X-Evil: 1_[31m_fdp.exe');
    const cli = await d.cli(['inbox', 'get', stored!]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout.replace(/\t/g, '')).not.toMatch(OBEYED);
    expect(cli.stdout).toMatch(/^attachment 1\tinvoice_X-Evil: 1_\[31m_fdp\.exe {2}application\/octet-stream {2}2 bytes/m);
    const rawRes = await fetch(new URL(msg.raw_url, d.url), { headers: { authorization: `Bearer ${d.testKey}` } });
    expect(await rawRes.text()).toContain(param);
  });

  it('a send, a draft or a batch item naming a file with one is 400 invalid_param_value naming the field, over real HTTP', async () => {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(d.url + path, { method: 'POST', headers: { authorization: `Bearer ${d.testKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const item = (filename: string) => ({ filename, content_base64: 'aGk=', content_type: 'text/plain' });
    for (const name of [NAME, 'a\nb.txt', 'tab\there.txt', 'x\u202Etxt.exe', 'nul\u0000.txt', 'c1\u0085.txt']) {
      const r = await post('/v1/messages', { agent: 'agent', to: 'bob@example.com', subject: 's', body_text: 'b', attachments: [item(name)] });
      expect(r.status, JSON.stringify(name)).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'invalid_param_value', param: 'attachments[0].filename' });
      expect(r.body.error.message).toContain('control characters');
    }
    const draft = await post('/v1/drafts', { agent: 'agent', to: 'bob@example.com', subject: 's', attachments: [item('ok.txt'), item(NAME)] });
    expect(draft.status).toBe(400);
    expect(draft.body.error).toMatchObject({ code: 'invalid_param_value', param: 'attachments[1].filename' });
    const batch = await post('/v1/messages/batch', { messages: [{ agent: 'agent', to: 'bob@example.com', subject: 's', body_text: 'b', attachments: [item(NAME)] }] });
    expect(batch.status).toBe(201);
    expect(batch.body.data[0].error).toMatchObject({ code: 'invalid_param_value', param: 'attachments[0].filename' });
    // Names with marks, spaces and non-Latin letters go through as given.
    const ok = await post('/v1/messages', { agent: 'agent', to: 'bob@example.com', subject: 's', body_text: 'b', attachments: [item('Bericht März – ünïcödé \u200f.txt')] });
    expect(ok.status).toBe(201);
    expect(ok.body.attachments[0].filename).toBe('Bericht März – ünïcödé \u200f.txt');
  });

  it('the CLI sending a file whose name holds a line break: the refusal, neutralised, exit code 1', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'names-')), 'report\n\x1b[2Jfinal.txt');
    writeFileSync(file, 'hi');
    const r = await d.cli(['send', '--to', 'bob@example.com', '--subject', 's', '--body', 'b', '--attach', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('attachments[0].filename');
    expect(r.stderr).not.toMatch(OBEYED);
  });

  it('the simulator refuses a subject with CR, LF or another control character, as a send does', async () => {
    for (const subject of ['Hello\r\nBcc: victim@example.com', 'bell\x07', 'del\x7f']) {
      const res = await fetch(d.url + '/v1/test/inbound', {
        method: 'POST', headers: { authorization: `Bearer ${d.testKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'agent', from: 'bob@example.com', subject, body_text: 'b' }),
      });
      expect(res.status, JSON.stringify(subject)).toBe(400);
      const body = (await res.json()) as any;
      expect(body.error).toMatchObject({ code: 'invalid_param_value', param: 'subject' });
      expect(body.error.message).toContain('must be one line');
    }
    const tab = await d.api('POST', '/v1/test/inbound', { agent: 'agent', from: 'bob@example.com', subject: 'a\ttab', body_text: 'b' });
    expect(tab.message_id).toMatch(/^rcv_/);
  });
});
