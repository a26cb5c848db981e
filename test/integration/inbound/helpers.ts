import net from 'node:net';
import nodemailer from 'nodemailer';
import { startSmtpListener, type SmtpListener, type SmtpListenerOptions } from '../../../src/server/smtp/listener.js';
import type { TestApp } from '../../helpers/app.js';
import type { TestDaemon } from '../../helpers/daemon.js';

/** An offline DNS: answers only what the test put in; everything else is NXDOMAIN. */
export function fakeResolver(records: Record<string, string[][] | string[]> = {}) {
  const calls: string[] = [];
  const resolver = async (name: string, rrtype: string) => {
    const key = `${rrtype} ${name.toLowerCase().replace(/\.$/, '')}`;
    calls.push(key);
    const hit = records[key];
    if (hit) return hit;
    throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  };
  return { resolver, calls, records };
}

/** The listener as the daemon runs it: with the inbound queue (ack after a durable raw store), unless `queue: undefined`. */
export async function startSmtp(t: TestApp, opts: Partial<SmtpListenerOptions> = {}): Promise<SmtpListener> {
  return startSmtpListener(t.ctx, {
    host: '127.0.0.1', port: 0, maxMessageBytes: t.config.smtpMaxMessageBytes, resolver: fakeResolver().resolver,
    queue: { maxDepth: 10_000, leaseMs: 60_000, file: t.config.database.kind === 'sqlite' ? t.config.database.file : null }, ...opts,
  });
}

/** Wait until the inbound queue is empty: every acknowledged message processed (tests that read the database directly). */
export async function untilProcessed(t: TestApp, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await t.ctx.db.selectFrom('inbound_queue').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    // The rows go with their commit; the queue's own count (its 451 threshold) follows once the
    // commit is flushed: wait for that too (settled() resolves when every message is done).
    if (Number(r.n) === 0) return void (await t.ctx.inboundSettled?.());
    if (Date.now() > end) throw new Error(`${r.n} messages still queued after ${timeoutMs} ms`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

export function transport(port: number, extra: Record<string, unknown> = {}) {
  return nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, ...extra } as never);
}

/** A raw SMTP conversation: write lines, read replies (multi-line replies joined). */
export class RawSmtp {
  private buf = '';
  private waiters: (() => void)[] = [];
  readonly sock: net.Socket;
  /** localAddress: the source address (127.0.0.2 is a second loopback address on Linux). */
  constructor(port: number, localAddress?: string) {
    this.sock = net.connect({ port, host: '127.0.0.1', localAddress });
    this.sock.setEncoding('utf8');
    this.sock.on('data', (d: string) => { this.buf += d; this.waiters.splice(0).forEach((w) => w()); });
    this.sock.on('close', () => this.waiters.splice(0).forEach((w) => w()));
    this.sock.on('error', () => { /* seen as a closed socket */ });
  }
  /** Resolves once the server (or we) closed the connection. */
  async untilClosed(): Promise<void> {
    while (!this.sock.destroyed) await new Promise<void>((r) => this.waiters.push(r));
  }
  /** The next complete reply (last line has `code ` form). */
  async reply(): Promise<string> {
    for (;;) {
      const m = /^(?:\d{3}-[^\n]*\n)*\d{3}(?: [^\n]*)?\r?\n/.exec(this.buf);
      if (m) {
        this.buf = this.buf.slice(m[0].length);
        return m[0].trim();
      }
      if (this.sock.destroyed) return this.buf.trim();
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }
  write(line: string): void {
    this.sock.write(line + '\r\n');
  }
  async cmd(line: string): Promise<string> {
    this.write(line);
    return this.reply();
  }
  close(): void {
    this.sock.destroy();
  }
}

export function eml(o: { from?: string; to?: string; subject?: string; body?: string; headers?: string[] } = {}): string {
  return [
    `From: ${o.from ?? 'Alice <alice@sender.test>'}`,
    `To: ${o.to ?? 'agent@local.mailagent.localhost'}`,
    `Subject: ${o.subject ?? 'Hello'}`,
    `Message-ID: <${Math.random().toString(36).slice(2)}@sender.test>`,
    'Date: Thu, 01 Jan 2026 00:00:00 +0000',
    ...(o.headers ?? []),
    '',
    o.body ?? 'Hi there.',
    '',
  ].join('\r\n');
}

/** GET a received message from a real daemon, retrying while it is still being processed (404). */
export async function receivedSoon(d: TestDaemon, id: string, tries = 60): Promise<any> {
  for (let i = 0; ; i++) {
    try {
      return await d.api('GET', `/v1/messages/received/${id}`, undefined, d.liveKey);
    } catch (err) {
      if (i >= tries || !/: 404 /.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
