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
