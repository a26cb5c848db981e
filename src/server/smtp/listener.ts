import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { SMTPServerAddress, SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import type { AppContext } from '../../services/context.js';
import { announceInbound, ingestInbound, routeRecipient } from '../../services/inbound.js';
import { DEFAULT_QUEUE_CONCURRENCY, InboundQueue, needsReplyFromProcessing, QUEUE_PIECE_BYTES } from '../../services/inbound-queue.js';
import { OVER_LIMIT_REASONS } from '../../contract/received.js';
import { authenticateInbound, createDnsResolver, trustedNetworkOf, type AuthCheckInput, type DNSResolver } from '../../mail/auth.js';
import { workOf } from '../../services/message-work.js';
import { MAX_HEADER_BYTES, MAX_HEADER_FIELDS, readHeaders } from '../../mail/parse.js';
import { unquoteLocalPart } from '../../mail/address.js';
import { FastGreetingSMTPServer, type SessionLimits } from './fast-greeting.js';
import type { SmtpObserver } from '../ops/metrics.js';
import { DiskGuard } from '../ops/disk-guard.js';

export interface SmtpListenerOptions {
  host: string;
  port: number;
  /** Largest message accepted (advertised as SIZE, enforced with 552). */
  maxMessageBytes: number;
  tlsCert?: string | null;
  tlsKey?: string | null;
  /** DNS for SPF/DKIM/DMARC; tests inject one so they run offline. */
  resolver?: DNSResolver;
  /** Greeting hold for early-talker detection (see FastGreetingSMTPServer); default 0. */
  greetingDelayMs?: number;
  maxClients?: number;
  /** Idle timeout per connection (RFC 5321 §4.5.3.2 suggests minutes; one is plenty for a local daemon). */
  socketTimeoutMs?: number;
  /** Per-address and per-session caps (FastGreetingSMTPServer); absent → none (unit tests). */
  limits?: Partial<SessionLimits>;
  /** CIDRs whose connections count as authenticated (config trustedNetworks; default none here). */
  trustedNetworks?: readonly string[];
  /** Banner / EHLO name. */
  name?: string;
  /** The low-disk guard: below it MAIL FROM and the end of DATA answer 452 4.3.1. */
  disk?: DiskGuard;
  /** Metrics hooks (sessions, refusals by reason). */
  observer?: SmtpObserver;
  /**
   * Acknowledge after a durable raw store and process afterwards (services/inbound-queue.ts;
   * the daemon sets it). Absent: every message is processed and committed before its 250.
   */
  queue?: { maxDepth: number; concurrency?: number; leaseMs: number; file?: string | null; maxDelayMs?: number; afterBurstMs?: number; burst?: () => boolean };
}

/** RFC 5321 §4.5.3.1.8 requires room for 100 recipients; more are answered 452 (§4.5.3.1.10). */
export const MAX_RECIPIENTS = 100;

export interface SmtpListener {
  name: 'smtp';
  port: number;
  address(): string;
  listening(): boolean;
  stop(): Promise<void>;
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/**
 * The inbound SMTP listener: thin callbacks around the one inbound pipeline. RCPT is checked
 * against this instance's agents (unknown → 550 5.1.1; other domains → 550 5.7.1, never a relay);
 * the 250 after DATA is sent only once the message is committed (synchronous=FULL), or, with the
 * inbound queue, once its raw bytes are (processing follows; docs/inbound.md → Durability).
 */
export async function startSmtpListener(ctx: AppContext, opts: SmtpListenerOptions): Promise<SmtpListener> {
  const resolver = opts.resolver ?? createDnsResolver();
  const tls = opts.tlsCert && opts.tlsKey ? { cert: readFileSync(opts.tlsCert), key: readFileSync(opts.tlsKey) } : null;
  const name = opts.name ?? ctx.config.agentDomain;
  const inFlight = new Set<Promise<unknown>>();
  const observer = opts.observer;
  /** A refusal, counted by reason for /metrics. */
  const refuse = (code: number, message: string, reason: string): Error => {
    observer?.refused(reason);
    return smtpError(code, message);
  };
  /** RFC 3463 4.3.1 "mail system full": a temporary refusal, so the sender queues and retries. */
  const diskFull = async (): Promise<Error | null> => {
    if (!opts.disk) return null;
    const s = await opts.disk.check();
    return s.ok ? null : refuse(452, `4.3.1 Insufficient system storage (${DiskGuard.describe(s)}); try again later`, 'low_disk');
  };

  // SPF/DKIM/DMARC run in the pipeline's workers, round by round; the DNS questions between rounds
  // are asked here through `resolver` (mail/auth.ts authenticateInRounds).
  const check = (input: AuthCheckInput) => workOf(ctx).authenticate(input);
  // Without a pool (tests, in-process use) mailauth loads on this thread: now, as a static import
  // did before, rather than during the first message's processing.
  let authWarmed = !ctx.work;
  if (authWarmed) await workOf(ctx).warmAuth();
  const authenticate = (m: { raw: Buffer; ip: string | null; helo: string | null; mailFrom: string }) => authenticateInbound({
    raw: m.raw, ip: m.ip, helo: m.helo, mailFrom: m.mailFrom, mta: name, resolver, trustedNetworks: opts.trustedNetworks,
  }, check);
  const queue = opts.queue ? new InboundQueue(ctx, {
    authenticate, maxDepth: opts.queue.maxDepth, concurrency: opts.queue.concurrency ?? DEFAULT_QUEUE_CONCURRENCY,
    leaseMs: opts.queue.leaseMs, file: opts.queue.file, maxDelayMs: opts.queue.maxDelayMs, afterBurstMs: opts.queue.afterBurstMs, burst: opts.queue.burst,
    pollMs: 2_000, retryMs: 5_000,
  }) : null;
  /** RFC 3463 4.3.2 "system not accepting network messages": the queue is too deep; retry later. */
  const queueFull = (): Error | null => (queue?.full()
    ? refuse(451, '4.3.2 Too much mail is waiting to be processed; try again later', 'queue_full') : null);

  const server = new FastGreetingSMTPServer({
    name,
    banner: 'mailagent', // smtp-server greets "220 <name> ESMTP <banner>"
    logger: false,
    size: opts.maxMessageBytes,
    authOptional: true,
    // STARTTLS only with the operator's own certificate: never the library's built-in one,
    // whose private key is public.
    ...(tls ? { key: tls.key, cert: tls.cert } : { hideSTARTTLS: true }),
    disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    disableReverseLookup: true,
    maxClients: opts.maxClients ?? 200,
    socketTimeout: opts.socketTimeoutMs ?? 60_000,
    closeTimeout: 5_000,
    // RFC 5321 §4.5.3.1.4 allows 512 octets per command line; extensions (SIZE, SMTPUTF8) need a little more.
    maxCommandLength: 4096,
    greetingDelayMs: opts.greetingDelayMs ?? 0,
    limits: opts.limits,

    onConnect(session: SMTPServerSession, callback: (err?: Error | null) => void) {
      observer?.sessionOpened();
      // The first client outside the trusted networks: its mail will be authenticated, so the
      // pool's workers load mailauth now, while the message is still arriving.
      if (!authWarmed && !trustedNetworkOf(session.remoteAddress ?? null, opts.trustedNetworks ?? [])) {
        authWarmed = true;
        void workOf(ctx).warmAuth();
      }
      callback();
    },
    onClose() {
      observer?.sessionClosed();
    },
    onMailFrom(_address: SMTPServerAddress, _session: SMTPServerSession, callback: (err?: Error | null) => void) {
      const busy = queueFull();
      if (busy) {
        callback(busy);
        return;
      }
      diskFull().then((err) => callback(err), () => callback());
    },

    onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: (err?: Error | null) => void) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) {
        callback(refuse(452, `4.5.3 Too many recipients (at most ${MAX_RECIPIENTS} per message)`, 'too_many_recipients'));
        return;
      }
      // "agent"@domain is agent@domain (RFC 5321 §4.1.2): the envelope keeps the plain form, so
      // the queue and the store route the same mailbox.
      address.address = unquoteLocalPart(address.address);
      routeRecipient(ctx, address.address).then((r) => {
        if (r.kind === 'agent') callback();
        else if (r.kind === 'foreign') callback(refuse(550, `5.7.1 Relaying denied: ${r.reason}`, 'relay_denied'));
        else callback(refuse(550, `5.1.1 ${address.address}: recipient unknown (${r.reason})`, 'unknown_recipient'));
      }, (err) => {
        ctx.log.error({ err }, 'smtp: recipient lookup failed');
        callback(smtpError(451, '4.3.0 Temporary failure looking up the recipient; try again later'));
      });
    },

    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null, message?: string) => void) {
      // The message is gathered in pieces of ~QUEUE_PIECE_BYTES as it arrives: a copy of each
      // piece's worth of network chunks, spread over the DATA phase, instead of one copy of the
      // whole message at its end (40 MB: tens of milliseconds of the main thread in one go).
      const pieces: Buffer[] = [];
      let chunks: Buffer[] = [];
      let chunkBytes = 0;
      let bytes = 0;
      stream.on('data', (c: Buffer) => {
        // Keep counting past the limit (the client must finish DATA) but stop buffering.
        bytes += c.length;
        if (bytes > opts.maxMessageBytes) return;
        chunks.push(c);
        chunkBytes += c.length;
        if (chunkBytes >= QUEUE_PIECE_BYTES) {
          pieces.push(Buffer.concat(chunks, chunkBytes));
          chunks = [];
          chunkBytes = 0;
        }
      });
      stream.on('error', () => { /* the connection reports it */ });
      stream.on('end', () => {
        if (stream.sizeExceeded || bytes > opts.maxMessageBytes) {
          callback(refuse(552, `5.3.4 Message size exceeds the fixed maximum of ${opts.maxMessageBytes} bytes`, 'too_large'));
          return;
        }
        if (chunkBytes || !pieces.length) pieces.push(Buffer.concat(chunks, chunkBytes));
        // The header block is at most MAX_HEADER_BYTES: its check needs only the first pieces.
        const head = (() => {
          const need = MAX_HEADER_BYTES + 4;
          let n = 0;
          let k = 0;
          while (k < pieces.length && n < need) n += pieces[k++].length;
          return k === 1 ? pieces[0] : Buffer.concat(pieces.slice(0, k), n);
        })();
        const hdr = readHeaders(head);
        if (hdr.headerBytes > MAX_HEADER_BYTES) {
          callback(refuse(552, `5.3.4 Header section exceeds ${MAX_HEADER_BYTES} bytes`, 'header_too_large'));
          return;
        }
        // The field cap of docs/security.md, refused like the byte cap: a stored message whose
        // headers view silently lacks fields (From/Subject after 10,000 junk lines) would lie.
        if (hdr.fields > MAX_HEADER_FIELDS) {
          callback(refuse(552, `5.3.4 Header section has ${hdr.fields} fields, more than the maximum of ${MAX_HEADER_FIELDS}`, 'header_too_many_fields'));
          return;
        }
        const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const rcptTo = session.envelope.rcptTo.map((r) => r.address);
        if (queue && !needsReplyFromProcessing(rcptTo)) {
          acceptQueued(pieces, mailFrom, rcptTo, session, callback);
          return;
        }
        const raw = pieces.length === 1 ? pieces[0] : Buffer.concat(pieces, bytes);
        // Announced now, so a group commit in progress waits for this message (services/inbound.ts).
        const arrival = announceInbound(ctx);
        const work = (async () => {
          // The disk may have filled during DATA: refuse before writing anything.
          const full = await diskFull();
          if (full) throw full;
          // Trusted networks (docs/inbound.md → Authentication) skip the DNS checks; `stored` then carries our Authentication-Results.
          const { auth, raw: stored } = await authenticate({ raw, ip: session.remoteAddress ?? null, helo: session.hostNameAppearsAs || null, mailFrom });
          return ingestInbound(ctx, {
            raw: stored, mailFrom, rcptTo, source: 'smtp',
            remoteAddress: session.remoteAddress ?? null, auth,
          }, arrival);
        })().finally(() => arrival.release());
        inFlight.add(work);
        work.then((res) => {
          if (!res.accepted.length) {
            callback(refuse(550, `5.2.2 Not delivered: ${res.refused.map((r) => `${r.rcpt}: ${r.reason}`).join('; ')}`.slice(0, 400), 'not_delivered'));
          } else {
            // Mail at a return path that is not a delivery report is accepted and discarded: its id names nothing.
            const dropped = new Set((res.stored ?? []).filter((st) => st.dropped).map((st) => st.messageId));
            const ids = [...new Set(res.accepted.map((a) => a.messageId))].filter((id) => !dropped.has(id));
            // Held plus-address mail (only a record is kept) says so in the reply (docs/inbound.md).
            const held = (res.stored ?? []).filter((st) => st.overLimit);
            const notes = [
              ...(ids.length ? [`stored as ${ids.join(' ')}`] : []),
              ...held.map((st) => `${st.messageId} held, not delivered (${st.overLimit}: ${st.heldWhy ?? OVER_LIMIT_REASONS[st.overLimit!]})`),
              ...(dropped.size ? ['discarded: a return path takes delivery reports only'] : []),
            ];
            callback(null, `2.0.0 Ok: ${notes.join('; ')}`.slice(0, 480));
          }
        }, (err) => {
          if ((err as { responseCode?: number }).responseCode) {
            callback(err as Error);
            return;
          }
          ctx.log.error({ err }, 'smtp: storing a message failed');
          callback(refuse(451, '4.3.0 Temporary failure storing the message; try again later', 'storage_error'));
        }).finally(() => inFlight.delete(work));
      });
    },
  });

  /**
   * The queued path: the 250 follows the commit of the raw bytes and envelope; processing runs
   * right after (services/inbound-queue.ts). Plus-addressed mail takes the direct path above,
   * because its reply says whether it was held.
   */
  function acceptQueued(raw: Buffer[], mailFrom: string, rcptTo: string[], session: SMTPServerSession, callback: (err?: Error | null, message?: string) => void) {
    const busy = queueFull();
    if (busy) {
      callback(busy);
      return;
    }
    const work = (async () => {
      const full = await diskFull();
      if (full) throw full;
      return queue!.accept({ raw, mailFrom, rcptTo, remoteAddress: session.remoteAddress ?? null, helo: session.hostNameAppearsAs || null });
    })();
    inFlight.add(work);
    work.then((res) => {
      if (!res.accepted.length) {
        callback(refuse(550, `5.2.2 Not delivered: ${res.refused.map((r) => `${r.rcpt}: ${r.reason}`).join('; ')}`.slice(0, 400), 'not_delivered'));
      } else {
        callback(null, `2.0.0 Ok: stored as ${[...new Set(res.accepted.map((a) => a.messageId))].join(' ')}`.slice(0, 480));
      }
    }, (err) => {
      if ((err as { responseCode?: number }).responseCode) {
        callback(err as Error);
        return;
      }
      ctx.log.error({ err }, 'smtp: queueing a message failed');
      callback(refuse(451, '4.3.0 Temporary failure storing the message; try again later', 'storage_error'));
    }).finally(() => inFlight.delete(work));
  }

  // A listen failure (port in use) is reported once, by start()'s rejection; only connection errors are logged.
  server.on('error', (err) => { if ((err as NodeJS.ErrnoException).syscall !== 'listen') ctx.log.warn({ err }, 'smtp: connection error'); });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.server.once('error', onError);
    server.listen(opts.port, opts.host, () => {
      server.server.off('error', onError);
      resolve();
    });
  });
  if (queue) {
    await queue.start();
    opts.observer?.threads?.(async () => [{ thread: 'queue-writer', heap: await queue.writerHeap() }]);
    // Several listeners on one context (tests): a read waits for each one's queue.
    const others = ctx.inboundSettled;
    ctx.inboundSettled = others ? async () => { await Promise.all([others(), queue.settled()]); } : () => queue.settled();
  }
  const addr = server.server.address() as AddressInfo;
  return {
    name: 'smtp',
    port: addr.port,
    address: () => `${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`,
    listening: () => server.server.listening,
    async stop() {
      // Stop accepting, let sessions in DATA finish storing (bounded by closeTimeout), then resolve.
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...inFlight]);
      // Messages being processed finish; the rest of the queue waits for the next start.
      await queue?.stop();
    },
  };
}
