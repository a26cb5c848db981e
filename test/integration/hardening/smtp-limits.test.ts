import { afterEach, describe, expect, it } from 'vitest';
import { startLiveDaemon, type LiveDaemon } from './helpers.js';
import { DEFAULT_LIMITS } from '../../../src/server/config.js';
import { RawSmtp as Client } from '../inbound/helpers.js';
import { commandName, nextSessionId } from '../../../src/server/smtp/fast-greeting.js';

// Issue #10 item 2 (SMTP slowloris), replayed over real TCP against a real daemon. 127.0.0.1
// and 127.0.0.2 are both loopback on Linux: two addresses on one machine.

async function deliver(port: number, to: string, localAddress: string): Promise<string> {
  const c = new Client(port, localAddress);
  try {
    const greeting = await c.reply();
    if (!greeting.startsWith('220')) return greeting;
    await c.cmd('EHLO normal.example');
    await c.cmd('MAIL FROM:<someone@example.com>');
    const rcpt = await c.cmd(`RCPT TO:<${to}>`);
    if (!rcpt.startsWith('250')) return rcpt;
    await c.cmd('DATA');
    return await c.cmd('From: someone@example.com\r\nTo: ' + to + '\r\nSubject: still here\r\n\r\nA normal delivery.\r\n.');
  } finally {
    c.close();
  }
}

let d: LiveDaemon | null = null;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await d?.stop();
  d = null;
});

async function agentEmail(daemon: LiveDaemon): Promise<string> {
  return (await daemon.api('GET', '/v1/agents')).body.data[0].email;
}

describe('SMTP: one address cannot hold every slot', () => {
  it('with the defaults: 250 idle connections from 127.0.0.1 → those past the cap get 421; 127.0.0.2 still delivers', async () => {
    d = await startLiveDaemon();
    const cap = DEFAULT_LIMITS.smtpMaxConnectionsPerAddress;
    expect(cap).toBeGreaterThan(0);
    for (let i = 0; i < 250; i++) clients.push(new Client(d.smtpPort));
    const greetings = await Promise.all(clients.map((c) => c.reply()));
    expect(greetings.filter((g) => g.startsWith('220'))).toHaveLength(cap);
    const refused = greetings.filter((g) => g.startsWith('421'));
    expect(refused).toHaveLength(250 - cap);
    expect(refused[0]).toContain('Too many connections from your address');
    // The refused ones are closed by the server.
    await Promise.all(clients.filter((c, i) => greetings[i].startsWith('421')).map((c) => c.untilClosed()));

    expect(await deliver(d.smtpPort, await agentEmail(d), '127.0.0.2')).toMatch(/^250 /);
    // The idle holder frees a slot by closing; the next connection from it is greeted again.
    const holder = clients.find((c, i) => greetings[i].startsWith('220'))!;
    holder.close();
    await holder.untilClosed();
    await new Promise((r) => setTimeout(r, 50));
    const again = new Client(d.smtpPort);
    clients.push(again);
    expect(await again.reply()).toMatch(/^220 /);
  });

  it('the cap is configurable (smtpMaxConnectionsPerAddress) and counts each address on its own', async () => {
    d = await startLiveDaemon({ smtpMaxConnectionsPerAddress: 2 });
    const a = [new Client(d.smtpPort), new Client(d.smtpPort), new Client(d.smtpPort)];
    const b = [new Client(d.smtpPort, '127.0.0.2'), new Client(d.smtpPort, '127.0.0.2')];
    clients.push(...a, ...b);
    expect((await Promise.all(a.map((c) => c.reply()))).map((g) => g.slice(0, 3)).sort()).toEqual(['220', '220', '421']);
    expect((await Promise.all(b.map((c) => c.reply()))).map((g) => g.slice(0, 3))).toEqual(['220', '220']);
  });
});

describe('SMTP: commands without progress', () => {
  it('a NOOP loop is closed with 421 after smtpMaxCommandsWithoutProgress; a delivery in between starts the count again', async () => {
    d = await startLiveDaemon({ smtpMaxCommandsWithoutProgress: 5 });
    const to = await agentEmail(d);
    const c = new Client(d.smtpPort);
    clients.push(c);
    expect(await c.reply()).toMatch(/^220/);
    expect(await c.cmd('EHLO loop.example')).toMatch(/^250/); // 1
    for (let i = 0; i < 3; i++) expect(await c.cmd('NOOP')).toMatch(/^250/); // 2..4
    // A message: MAIL (5), RCPT, DATA (resets).
    expect(await c.cmd('MAIL FROM:<a@example.com>')).toMatch(/^250/);
    expect(await c.cmd(`RCPT TO:<${to}>`)).toMatch(/^250/);
    expect(await c.cmd('DATA')).toMatch(/^354/);
    expect(await c.cmd('Subject: x\r\n\r\nbody\r\n.')).toMatch(/^250/);
    for (let i = 0; i < 3; i++) expect(await c.cmd(['RSET', 'HELP', 'NOOP'][i])).toMatch(/^2/);
    expect(await c.cmd('NOOP')).toMatch(/^250/); // 4
    expect(await c.cmd('NOOP')).toMatch(/^250/); // 5
    const over = await c.cmd('NOOP'); // 6: past the cap
    expect(over).toMatch(/^421 .*Too many commands without sending a message/);
    await c.untilClosed();
  });

  it('the default cap exists: NOOP every turn cannot keep a session forever', async () => {
    d = await startLiveDaemon();
    const c = new Client(d.smtpPort);
    clients.push(c);
    await c.reply();
    let last = '';
    for (let i = 0; i < DEFAULT_LIMITS.smtpMaxCommandsWithoutProgress + 1; i++) last = await c.cmd('NOOP');
    expect(last).toMatch(/^421/);
  });
});

describe('SMTP: session lifetime', () => {
  it('sessions past smtpMaxSessionSeconds get 421 and are closed, whatever they sent', async () => {
    d = await startLiveDaemon({ smtpMaxSessionSeconds: 1 });
    const idle = new Client(d.smtpPort);
    const talker = new Client(d.smtpPort);
    clients.push(idle, talker);
    expect(await idle.reply()).toMatch(/^220/);
    expect(await talker.reply()).toMatch(/^220/);
    expect(await talker.cmd('EHLO talker.example')).toMatch(/^250/);
    const t0 = Date.now();
    expect(await idle.reply()).toMatch(/^421 .*Session too long/);
    await idle.untilClosed();
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(await talker.reply()).toMatch(/^421 .*Session too long/);
  });

  it('a session still sending its message past smtpMaxSessionSeconds is cut at twice the lifetime', async () => {
    d = await startLiveDaemon({ smtpMaxSessionSeconds: 1 });
    const to = await agentEmail(d);
    const c = new Client(d.smtpPort);
    clients.push(c);
    expect(await c.reply()).toMatch(/^220/);
    expect(await c.cmd('EHLO trickle.example')).toMatch(/^250/);
    expect(await c.cmd('MAIL FROM:<someone@example.com>')).toMatch(/^250/);
    expect(await c.cmd(`RCPT TO:<${to}>`)).toMatch(/^250/);
    expect(await c.cmd('DATA')).toMatch(/^354/);
    // A line every 100 ms: never idle, never done.
    const trickle = setInterval(() => c.write('x'), 100);
    try {
      await c.untilClosed();
    } finally {
      clearInterval(trickle);
    }
  });
});

describe('SMTP session ids', () => {
  it('are 16 base-32 characters like the library\'s own, and unique per connection', () => {
    const ids = Array.from({ length: 10_000 }, () => nextSessionId());
    for (const id of ids.slice(0, 50)) expect(id).toMatch(/^[0-9a-v]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});


describe('SMTP command names (the progress count)', () => {
  it('are read as smtp-server reads them: the first word, upper-cased, from a Buffer or a string', () => {
    expect(commandName(Buffer.from('mail FROM:<a@b.test> SIZE=10'))).toBe('MAIL');
    expect(commandName(Buffer.from('noop'))).toBe('NOOP');
    expect(commandName('rcpt TO:<a@b.test>')).toBe('RCPT');
    expect(commandName(Buffer.from(' data'))).toBe('');
    expect(commandName(Buffer.from('ÉHLO x'))).toBe('ÉHLO');
    expect(commandName(Buffer.alloc(0))).toBe('');
    expect(commandName(undefined)).toBe('');
  });
});
