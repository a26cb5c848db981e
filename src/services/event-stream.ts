import type { Event, EventStreamQuery } from '../contract/events.js';
import { listEvents } from '../db/repos/events.js';
import { Errors } from '../shared/errors.js';
import type { AppContext, AuthContext } from './context.js';
import { agentScope, eventTypesParam, sinceToIso } from './event-queries.js';

/**
 * The live event stream, GET /v1/events/stream (compat.md: server-sent events).
 *
 * Wire format: `: connected` first; then per event `id: evt_…`, `event: <type>`, `data: <one-line
 * JSON>` and a blank line, LF only; a `: keepalive` comment every ~15 s; never closed on a timer.
 *
 * Resume (`since` = event id or time, or `Last-Event-ID`): the subscriber listens on the bus
 * BEFORE it queries the database, buffers what it hears while it replays, then drains the buffer
 * and goes live. Every write is guarded by "id > last id written": event ids are time-ordered and
 * a single writer commits them in id order, so this delivers every later event exactly once, in
 * order, with no gap between the replay and the live part.
 */
export const KEEPALIVE_MS = 15_000;
/**
 * Caps (issue #10 item 3; docs/security.md; the daemon sets them from config `sseMax*`). A
 * subscriber with more than maxBufferedBytes queued to its socket has stopped reading: it is
 * dropped (the socket destroyed, so its buffer is freed at once) and resumes with Last-Event-ID.
 */
export const STREAM_DEFAULTS = { keepaliveMs: KEEPALIVE_MS, maxStreams: 200, maxStreamsPerKey: 20, maxBufferedBytes: 1024 * 1024 };
/** Live events held while a replay runs; past it the stream is dropped (it resumes by id). */
const MAX_PENDING_EVENTS = 1_000;
const REPLAY_BATCH = 500;
const EVENT_ID = /^evt_[0-9a-z]{26}$/;

export interface StreamSink {
  /** false when the socket buffer is full. */
  write(chunk: string): boolean;
  buffered(): number;
  waitDrain(): Promise<void>;
  end(): void;
  /** Drop the connection now, discarding what is queued (a consumer that stopped reading). */
  destroy(): void;
}

export interface StreamPlan {
  /** The caller's key (or connected-app grant): streams are capped per key. */
  keyId: string;
  /**
   * Authenticate the stream's request again (the HTTP layer's own check: key, access token or web
   * session); throws the ApiError a new request would get. Run before every batch of events and
   * every keepalive: a stream ends when its key is revoked or expires, or its session ends, as the
   * next request would be refused (docs/api-foundation.md: revocation is immediate). The key cache
   * (services/auth.ts) answers it without a database read while nothing changed.
   */
  recheck?: () => Promise<unknown>;
  workspaceId: string;
  agentId: string | null;
  types: string[] | null;
  afterId: string | null;
  sinceIso: string | null;
}

interface Subscription {
  keyId: string;
  /** Bytes queued to this stream's socket now. */
  buffered(): number;
  close(): void;
}

type StreamSettings = typeof STREAM_DEFAULTS;
const settings = new WeakMap<AppContext, StreamSettings>();
const open = new WeakMap<AppContext, Set<Subscription>>();
const settingsOf = (ctx: AppContext): StreamSettings => settings.get(ctx) ?? STREAM_DEFAULTS;

/** The daemon sets the caps from its config; tests may shorten the keepalive interval. */
export function configureEventStream(ctx: AppContext, s: Partial<StreamSettings>): void {
  settings.set(ctx, { ...settingsOf(ctx), ...s });
}

export function openStreamCount(ctx: AppContext): number {
  return open.get(ctx)?.size ?? 0;
}

/** Bytes queued to every open stream's socket (bounded by maxStreams × maxBufferedBytes). */
export function streamBufferedBytes(ctx: AppContext): number {
  let n = 0;
  for (const s of open.get(ctx) ?? []) n += s.buffered();
  return n;
}

/**
 * Refuse a new stream past the caps, before any byte is sent (so the answer is the JSON
 * envelope): 429 rate_limit_exceeded past the per-key cap, 503 past the total. Synchronous, and
 * runStream registers the stream synchronously after it, so two requests cannot both slip in.
 */
export function admitStream(ctx: AppContext, keyId: string): void {
  const s = settingsOf(ctx);
  const subs = open.get(ctx) ?? new Set<Subscription>();
  let mine = 0;
  for (const sub of subs) if (sub.keyId === keyId) mine++;
  if (mine >= s.maxStreamsPerKey) {
    throw Errors.limit('rate_limit_exceeded', `This key already has ${mine} open event streams (at most ${s.maxStreamsPerKey}); close one first.`, { resetsAt: null, retryAfterSeconds: null });
  }
  if (subs.size >= s.maxStreams) {
    throw Errors.serviceUnavailable(`This daemon serves at most ${s.maxStreams} event streams at once; retry later, or poll GET /v1/events.`);
  }
}

/** End every open stream (daemon stop): listeners removed, timers cleared, responses ended. */
export function closeEventStreams(ctx: AppContext): void {
  for (const s of [...(open.get(ctx) ?? [])]) s.close();
}

/** Validate a stream request before any byte is sent (errors are ordinary JSON envelopes). */
export async function planStream(
  ctx: AppContext, auth: AuthContext, q: EventStreamQuery, lastEventId: string | undefined,
): Promise<StreamPlan> {
  const types = eventTypesParam(q.event_types, 'event_types');
  const agentId = await agentScope(ctx, auth, q.agent_id);
  let afterId: string | null = null;
  let sinceIso: string | null = null;
  // Last-Event-ID wins: a reconnecting EventSource repeats the original URL (and its since).
  if (lastEventId !== undefined && lastEventId.trim() !== '') {
    const id = lastEventId.trim();
    if (!EVENT_ID.test(id)) throw Errors.invalidParam('Last-Event-ID', `"${id}" is not an event id (evt_...).`);
    afterId = id;
  } else if (q.since !== undefined) {
    const s = q.since.trim();
    if (s.startsWith('evt_')) {
      if (!EVENT_ID.test(s)) throw Errors.invalidParam('since', `"${s}" is not an event id (evt_...) or a time.`);
      afterId = s;
    } else {
      sinceIso = sinceToIso(s);
    }
  }
  return { keyId: auth.keyId, workspaceId: auth.workspaceId, agentId, types, afterId, sinceIso };
}

export function formatSse(ev: Event): string {
  // JSON.stringify never emits a raw LF or CR (they are escaped), so data is one line.
  return `id: ${ev.id}\nevent: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`;
}

/** Start streaming to a sink that has already sent its headers. Returns a handle to close it. */
export function runStream(ctx: AppContext, plan: StreamPlan, sink: StreamSink): Subscription {
  let closed = false;
  let lastId = plan.afterId ?? '';
  const { maxBufferedBytes, keepaliveMs } = settingsOf(ctx);
  let buffer: Event[] | null = plan.afterId || plan.sinceIso ? [] : null;

  const matches = (ev: Event) =>
    ev.workspace_id === plan.workspaceId
    && (!plan.agentId || ev.agent_id === plan.agentId)
    && (!plan.types || plan.types.includes(ev.type));

  const write = (ev: Event) => {
    if (closed || ev.id <= lastId) return;
    lastId = ev.id;
    sink.write(formatSse(ev));
    dropIfBehind();
  };
  // A consumer that stopped reading: drop it (destroy, not end: end() would wait for the
  // queued bytes to drain, which never happens, and keep them in memory until then).
  const dropIfBehind = () => {
    if (!closed && sink.buffered() > maxBufferedBytes) sub.close(true);
  };

  // Live events wait here while the credential is checked again (plan.recheck), then go out in
  // order; a refusal ends the stream instead.
  let live: Event[] = [];
  let checking = false;
  const refused = (err: unknown) => {
    if (closed) return;
    const e = err as { code?: unknown; message?: unknown };
    // A comment (clients ignore it) says why; a reconnect then gets the refusal as a JSON envelope.
    // An ApiError's code and message; anything else (the database failing) says no more than that.
    const why = (typeof e.code === 'string' ? `${e.code}: ${String(e.message)}` : 'internal_error: the credential could not be checked').replace(/[\r\n]+/g, ' ');
    sink.write(`: closed ${why}\n\n`);
    sub.close();
  };
  const recheck = async (): Promise<boolean> => {
    if (!plan.recheck) return true;
    try {
      await plan.recheck();
      return true;
    } catch (err) {
      refused(err);
      return false;
    }
  };
  const pump = async () => {
    if (checking) return;
    checking = true;
    try {
      while (live.length && !closed) {
        if (!(await recheck())) return;
        const batch = live;
        live = [];
        for (const ev of batch) write(ev);
      }
    } finally {
      checking = false;
    }
  };

  const onEvent = (ev: Event) => {
    if (!matches(ev)) return;
    if (buffer) {
      buffer.push(ev);
      if (buffer.length > MAX_PENDING_EVENTS) sub.close(true);
    } else if (!plan.recheck) write(ev);
    else {
      live.push(ev);
      if (live.length > MAX_PENDING_EVENTS) sub.close(true);
      else void pump();
    }
  };

  const timer = setInterval(() => {
    if (closed) return;
    // A stream with no events still ends within one keepalive of its key's revocation or expiry.
    void recheck().then((ok) => {
      if (!ok || closed) return;
      sink.write(': keepalive\n\n');
      dropIfBehind();
    });
  }, keepaliveMs);
  timer.unref?.();

  const sub: Subscription & { close(drop?: boolean): void } = {
    keyId: plan.keyId,
    buffered: () => (closed ? 0 : sink.buffered()),
    close(drop = false) {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      ctx.bus.off('event', onEvent);
      set.delete(sub);
      buffer = null;
      live = [];
      try {
        if (drop) sink.destroy();
        else sink.end();
      } catch {
        /* the socket is already gone */
      }
    },
  };
  const set = open.get(ctx) ?? new Set<Subscription>();
  open.set(ctx, set);
  set.add(sub);

  // Subscribe first, then replay: nothing committed in between can fall through the gap.
  ctx.bus.on('event', onEvent);
  sink.write(': connected\n\n');

  if (buffer) {
    void (async () => {
      try {
        let after = plan.afterId;
        for (;;) {
          if (closed || !(await recheck())) return;
          const page = await listEvents(ctx.db, plan.workspaceId, {
            agentId: plan.agentId, types: plan.types, since: plan.sinceIso, afterId: after,
          }, { limit: REPLAY_BATCH }, 'asc');
          for (const ev of page.rows) {
            write(ev);
            // Pause the replay while half the cap is queued; write() drops a stalled reader.
            if (sink.buffered() > maxBufferedBytes / 2) await sink.waitDrain();
            if (closed) return;
          }
          if (!page.has_more || !page.rows.length) break;
          after = page.rows[page.rows.length - 1].id;
        }
        if (closed || !buffer) return;
        // What arrived during the replay goes out through the same check as any live event.
        const pending = buffer;
        buffer = null;
        if (plan.recheck) {
          live = pending.concat(live);
          void pump();
        } else for (const ev of pending) write(ev);
      } catch (err) {
        ctx.log.error({ err }, 'event stream replay failed');
        sub.close();
      }
    })();
  }
  return sub;
}
