import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface RelayedMessage {
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
}

/**
 * A real SMTP relay for tests: smtp-server on 127.0.0.1, port 0. `mode` decides what it answers
 * (accept → 250 "queued as <id>"; refuse → 550 at DATA; defer → 451 at DATA). stop() closes it, so
 * the same URL then refuses connections (an unreachable relay). `rejectRcpt` refuses chosen
 * recipients at RCPT TO (lower-case address → reply code and text) while accepting the others.
 */
export class TestRelay {
  mode: 'accept' | 'refuse' | 'defer' = 'accept';
  readonly messages: RelayedMessage[] = [];
  readonly rejectRcpt = new Map<string, { code: number; message: string }>();
  private server: SMTPServer | null = null;
  private port = 0;
  private seq = 0;

  static async start(): Promise<TestRelay> {
    const r = new TestRelay();
    await r.listen();
    return r;
  }

  private async listen(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      hideSTARTTLS: true,
      disableReverseLookup: true,
      logger: false,
      onRcptTo: (address, _session, cb) => {
        const r = this.rejectRcpt.get(address.address.toLowerCase());
        if (r) return cb(Object.assign(new Error(r.message), { responseCode: r.code }));
        cb();
      },
      onData: (stream, session, cb) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          if (this.mode === 'refuse') return cb(Object.assign(new Error('5.7.1 Message rejected by test relay'), { responseCode: 550 }));
          if (this.mode === 'defer') return cb(Object.assign(new Error('4.3.0 Try again later'), { responseCode: 451 }));
          this.messages.push({
            mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            rcptTo: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks),
          });
          cb(null, `Ok: queued as RELAY${++this.seq}`);
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Listen again on the same port (after stop()). */
  async restart(): Promise<void> {
    if (!this.server) await this.listen();
  }
}
