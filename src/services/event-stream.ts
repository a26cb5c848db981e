import type { Event, EventStreamQuery } from '../contract/events.js';
import { listEvents } from '../db/repos/events.js';
import { Errors } from '../shared/errors.js';
import type { AppContext, AuthContext } from './context.js';
import { agentScope, checkEventType, sinceToIso } from './event-queries.js';

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
/** A subscriber this far behind (bytes queued to its socket) is dropped; it can resume by id. */
export const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
const REPLAY_BATCH = 500;
const EVENT_ID = /^evt_[0-9a-z]{26}$/;

export interface StreamSink {
  /** false when the socket buffer is full. */
  write(chunk: string): boolean;
  buffered(): number;
  waitDrain(): Promise<void>;
  end(): void;
}

export interface StreamPlan {
  workspaceId: string;
  agentId: string | null;
  types: string[] | null;
  afterId: string | null;
  sinceIso: string | null;
}

interface Subscription {
  close(): void;
}

const settings = new WeakMap<AppContext, { keepaliveMs: number }>();
const open = new WeakMap<AppContext, Set<Subscription>>();

/** Tests and the daemon may shorten or lengthen the keepalive interval. */
export function configureEventStream(ctx: AppContext, s: { keepaliveMs: number }): void {
  settings.set(ctx, s);
}

export function openStreamCount(ctx: AppContext): number {
  return open.get(ctx)?.size ?? 0;
}

/** End every open stream (daemon stop): listeners removed, timers cleared, responses ended. */
export function closeEventStreams(ctx: AppContext): void {
  for (const s of [...(open.get(ctx) ?? [])]) s.close();
}

/** Validate a stream request before any byte is sent (errors are ordinary JSON envelopes). */
export async function planStream(
  ctx: AppContext, auth: AuthContext, q: EventStreamQuery, lastEventId: string | undefined,
): Promise<StreamPlan> {
  const rawTypes = q.event_types === undefined ? [] : Array.isArray(q.event_types) ? q.event_types : [q.event_types];
  const list = rawTypes.flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean);
  const types = list.length && !list.includes('*') ? [...new Set(list.map((t) => checkEventType(t, 'event_types')))] : null;
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
  return { workspaceId: auth.workspaceId, agentId, types, afterId, sinceIso };
}

export function formatSse(ev: Event): string {
  // JSON.stringify never emits a raw LF or CR (they are escaped), so data is one line.
  return `id: ${ev.id}\nevent: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`;
}

/** Start streaming to a sink that has already sent its headers. Returns a handle to close it. */
export function runStream(ctx: AppContext, plan: StreamPlan, sink: StreamSink): Subscription {
  let closed = false;
  let lastId = plan.afterId ?? '';
  let buffer: Event[] | null = plan.afterId || plan.sinceIso ? [] : null;

  const matches = (ev: Event) =>
    ev.workspace_id === plan.workspaceId
    && (!plan.agentId || ev.agent_id === plan.agentId)
    && (!plan.types || plan.types.includes(ev.type));

  const write = (ev: Event) => {
    if (closed || ev.id <= lastId) return;
    lastId = ev.id;
    sink.write(formatSse(ev));
    if (sink.buffered() > MAX_BUFFERED_BYTES) sub.close();
  };

  const onEvent = (ev: Event) => {
    if (!matches(ev)) return;
    if (buffer) buffer.push(ev);
    else write(ev);
  };

  const keepaliveMs = settings.get(ctx)?.keepaliveMs ?? KEEPALIVE_MS;
  const timer = setInterval(() => {
    if (!closed) sink.write(': keepalive\n\n');
  }, keepaliveMs);
  timer.unref?.();

  const sub: Subscription = {
    close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      ctx.bus.off('event', onEvent);
      set.delete(sub);
      try {
        sink.end();
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
          if (closed) return;
          const page = await listEvents(ctx.db, plan.workspaceId, {
            agentId: plan.agentId, types: plan.types, since: plan.sinceIso, afterId: after,
          }, { limit: REPLAY_BATCH }, 'asc');
          for (const ev of page.rows) {
            write(ev);
            if (sink.buffered() > 1024 * 1024) await sink.waitDrain();
            if (closed) return;
          }
          if (!page.has_more || !page.rows.length) break;
          after = page.rows[page.rows.length - 1].id;
        }
        const pending = buffer!;
        buffer = null;
        for (const ev of pending) write(ev);
      } catch (err) {
        ctx.log.error({ err }, 'event stream replay failed');
        sub.close();
      }
    })();
  }
  return sub;
}
