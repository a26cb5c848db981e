import nodemailer, { type Transporter } from 'nodemailer';
import { inTurns } from './mime-build.js';

/** What the relay said about one message. */
export interface RelayResult {
  /** The relay's own id when its 250 reply names one (e.g. `250 2.0.0 Ok: queued as ABC123`). */
  relayId: string | null;
  response: string;
  accepted: string[];
  rejected: string[];
  /** What the relay answered each refused RCPT TO (the message still went to the accepted ones). */
  refusals: RcptRefusal[];
}

/** One recipient the relay refused at RCPT TO while accepting others (RFC 5321 §3.3). */
export interface RcptRefusal {
  recipient: string;
  /** The basic reply code, e.g. 550 or 450. */
  responseCode: number;
  /** The relay's whole reply line, e.g. `550 5.1.1 <bob@example.com>: Recipient address rejected`. */
  response: string;
}

/**
 * `unavailable`: nothing was handed over (connection, TLS, auth, timeout or a 4xx temporary
 * refusal) → 503 upstream_unavailable. `refused`: the relay answered 5xx → 502 upstream_error.
 */
export class RelayError extends Error {
  constructor(
    readonly kind: 'unavailable' | 'refused', message: string, readonly responseCode: number | null,
    /** The relay's reply line when it answered (null when it could not be reached). */
    readonly response: string | null = null,
    /** Nothing answered at all (connection refused, host unknown or unreachable): no SMTP dialogue took place. */
    readonly connectionRefused = false,
    /** Refused at RCPT TO (every recipient of this envelope): about the recipient, not the relay or the message. */
    readonly atRcpt = false,
  ) {
    super(message);
    this.name = 'RelayError';
  }
}

export interface Relay {
  /** The envelope is always set explicitly: header addresses never decide where mail goes. */
  send(envelope: { from: string; to: string[] }, raw: Buffer): Promise<RelayResult>;
  close(): void;
}

/**
 * An SMTP relay through nodemailer, pooled. nodemailer ≥ 10 sets TCP_NODELAY on its sockets
 * itself (smtp-connection _onConnect), which removes the ~40 ms Nagle stall per message that
 * DESIGN.md measured on older versions; pooling keeps connections (and the server's greeting
 * delay) out of the per-message path.
 */
export function createRelay(url: string, opts: { maxConnections?: number; connectionTimeoutMs?: number } = {}): Relay {
  const u = new URL(url);
  const transport: Transporter = nodemailer.createTransport({
    pool: true,
    maxConnections: opts.maxConnections ?? 5,
    maxMessages: Infinity,
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : u.protocol === 'smtps:' ? 465 : 587,
    secure: u.protocol === 'smtps:',
    auth: u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : undefined,
    tls: u.searchParams.get('tls.rejectUnauthorized') === 'false' ? { rejectUnauthorized: false } : undefined,
    ignoreTLS: u.searchParams.get('ignoreTLS') === 'true',
    // Credentials never cross the network in clear text: with a user and password on smtp://, the
    // relay must upgrade with STARTTLS or the send fails before AUTH (a path that strips STARTTLS
    // would otherwise capture the password). `?requireTLS=false` opts out, for a relay on this machine.
    requireTLS: u.protocol === 'smtp:' && !!u.username && u.searchParams.get('requireTLS') !== 'false' && u.searchParams.get('ignoreTLS') !== 'true',
    connectionTimeout: opts.connectionTimeoutMs ?? 10_000,
    greetingTimeout: opts.connectionTimeoutMs ?? 10_000,
    socketTimeout: 60_000,
  } as never);
  return {
    async send(envelope, raw) {
      try {
        // A large message piece by piece: its dot-stuffing runs in steps (mime-build.ts inTurns).
        const info = await transport.sendMail({ envelope, raw: inTurns(raw) });
        const response = String(info.response ?? '');
        const rejectedErrors = ((info as { rejectedErrors?: { recipient?: string; responseCode?: number; response?: string }[] }).rejectedErrors ?? []);
        const m = /queued as\s+([^\s]+)/i.exec(response) ?? /\bid=([^\s]+)/i.exec(response);
        return {
          relayId: m ? m[1] : null,
          response,
          accepted: (info.accepted ?? []).map(String),
          rejected: (info.rejected ?? []).map(String),
          refusals: rejectedErrors.filter((e) => e.recipient).map((e) => ({
            recipient: String(e.recipient),
            responseCode: typeof e.responseCode === 'number' ? e.responseCode : 550,
            response: String(e.response ?? ''),
          })),
        };
      } catch (err) {
        const e = err as { code?: string; command?: string; responseCode?: number; response?: string; message?: string };
        const code = typeof e.responseCode === 'number' ? e.responseCode : null;
        const atRcpt = e.code === 'EENVELOPE' && e.command === 'RCPT TO';
        if (e.code === 'ETLS') {
          // Nothing was handed over, and nothing about the message was refused: a relay set-up problem.
          throw new RelayError('unavailable', `the relay did not upgrade the connection with STARTTLS (${e.response ?? e.message}), so its password was not sent; `
            + 'use smtps:// (port 465) or a port that offers STARTTLS, or add ?requireTLS=false for a relay on this machine', code, e.response ?? null);
        }
        if (code !== null && code >= 500 && e.code !== 'EAUTH') {
          throw new RelayError('refused', `the relay refused the message: ${e.response ?? e.message}`, code, e.response ?? null, false, atRcpt);
        }
        const refusedOutright = code === null && /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN/.test(`${e.code ?? ''} ${e.message ?? ''}`);
        throw new RelayError('unavailable', `the relay could not be reached or deferred the message: ${e.response ?? e.message ?? e.code}`, code, e.response ?? null, refusedOutright, atRcpt);
      }
    },
    close() {
      transport.close();
    },
  };
}
