import net from 'node:net';

/**
 * A lean SMTP client for load: one persistent connection, TCP_NODELAY, PIPELINING of
 * MAIL/RCPT/DATA (RFC 2920), dot-stuffing (RFC 5321 §4.5.2). Used by the corpus test and the bench,
 * where nodemailer's per-message connection and Nagle stalls would measure the client, not the server.
 */
export class SmtpPipe {
  private buf = '';
  private waiters: (() => void)[] = [];
  private closed = false;
  /** performance.now() when the last message's final dot was written (bench: DATA end → reply). */
  dataSentAt = 0;
  private constructor(private readonly sock: net.Socket) {
    sock.setNoDelay(true);
    sock.setEncoding('latin1');
    sock.on('data', (d: string) => { this.buf += d; this.waiters.splice(0).forEach((w) => w()); });
    sock.on('close', () => { this.closed = true; this.waiters.splice(0).forEach((w) => w()); });
    sock.on('error', () => {});
  }

  static async open(port: number, host = '127.0.0.1'): Promise<SmtpPipe> {
    const sock = net.connect(port, host);
    await new Promise<void>((resolve, reject) => { sock.once('connect', resolve); sock.once('error', reject); });
    const c = new SmtpPipe(sock);
    const greeting = await c.reply();
    if (!greeting.startsWith('220')) throw new Error(`greeting: ${greeting}`);
    const ehlo = await c.cmd('EHLO load.test');
    if (!ehlo.startsWith('250')) throw new Error(`EHLO: ${ehlo}`);
    return c;
  }

  async reply(): Promise<string> {
    for (;;) {
      const m = /^(?:\d{3}-[^\n]*\n)*\d{3}(?: [^\n]*)?\r?\n/.exec(this.buf);
      if (m) {
        this.buf = this.buf.slice(m[0].length);
        return m[0].trim();
      }
      if (this.closed) throw new Error(`connection closed${this.buf ? `: ${this.buf.trim()}` : ''}`);
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  async cmd(line: string): Promise<string> {
    this.sock.write(line + '\r\n');
    return this.reply();
  }

  /** Send one message; resolves with the final reply (or the first refusal). */
  async send(from: string, to: string[], raw: Buffer): Promise<string> {
    this.sock.write(`MAIL FROM:<${from}>\r\n${to.map((t) => `RCPT TO:<${t}>\r\n`).join('')}DATA\r\n`);
    const mail = await this.reply();
    const rcpts: string[] = [];
    for (let i = 0; i < to.length; i++) rcpts.push(await this.reply());
    const data = await this.reply();
    if (!mail.startsWith('250')) return mail;
    if (!data.startsWith('354')) return rcpts.find((r) => !r.startsWith('250')) ?? data;
    this.sock.write(SmtpPipe.dotStuff(raw));
    this.dataSentAt = performance.now();
    return this.reply();
  }

  static dotStuff(raw: Buffer): Buffer {
    const text = raw.toString('latin1').replace(/\r?\n/g, '\r\n').replace(/(^|\r\n)\./g, '$1..');
    return Buffer.from(text + (text.endsWith('\r\n') ? '' : '\r\n') + '.\r\n', 'latin1');
  }

  async quit(): Promise<void> {
    try {
      await this.cmd('QUIT');
    } catch { /* already closed */ }
    this.sock.destroy();
  }
}
