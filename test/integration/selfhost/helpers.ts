import { sql } from 'kysely';
import type { AppContext } from '../../../src/services/context.js';
import { ingestInbound } from '../../../src/services/inbound.js';

/** A small message with one attachment, as an SMTP client would send it. */
export function rawMessage(opts: { to: string; from?: string; subject: string; body?: string; attachment?: string; messageId?: string }): Buffer {
  const boundary = 'b0undary';
  const lines = [
    `From: ${opts.from ?? 'alice@example.com'}`,
    `To: ${opts.to}`,
    `Subject: ${opts.subject}`,
    `Message-ID: <${opts.messageId ?? `${Math.random().toString(36).slice(2)}@example.com`}>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    opts.body ?? `Hello, this is ${opts.subject}.`,
    `--${boundary}`,
    'Content-Type: application/octet-stream; name="data.bin"',
    'Content-Disposition: attachment; filename="data.bin"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from(opts.attachment ?? 'x'.repeat(3000)).toString('base64').replace(/.{76}/g, '$&\r\n'),
    `--${boundary}--`,
    '',
  ];
  return Buffer.from(lines.join('\r\n'));
}

/** Deliver one message through the inbound pipeline (as the local transport does). */
export async function deliver(ctx: AppContext, to: string, subject: string, extra: { attachment?: string } = {}): Promise<string> {
  const r = await ingestInbound(ctx, { raw: rawMessage({ to, subject, ...extra }), mailFrom: 'alice@example.com', rcptTo: [to], source: 'local', remoteAddress: null, auth: null } as never);
  if (!r.accepted.length) throw new Error(`not accepted: ${JSON.stringify(r.refused)}`);
  return r.accepted[0].messageId;
}

export async function count(ctx: AppContext, table: string, where = '1 = 1'): Promise<number> {
  const r = await sql.raw<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).execute(ctx.db);
  return Number(r.rows[0].n);
}
