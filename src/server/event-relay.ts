import { isSharedStore, type DatabaseSpec } from '../db/open.js';
import { listenForCommits, type CommitListener } from '../db/notify.js';
import { EVENTS_CHANNEL, eventsAfter, lastEventId } from '../db/repos/events.js';
import type { AppContext } from '../services/context.js';

/**
 * Several daemons on one PostgreSQL: the live stream, inbox/wait and the webhook worker of each
 * daemon must hear events committed by every daemon. LISTEN/NOTIFY is the wake-up; the events
 * table is the truth: on each wake-up the relay reads every event after the last one it passed
 * on (event ids follow commit order, db/repos/events.ts orderEventWrite) and delivers them to
 * the local bus in order. A lost notification or a dropped LISTEN session only delays events
 * until the next wake-up (the listener wakes on reconnect; a slow poll covers the rest).
 */
export interface EventRelay {
  stop(): Promise<void>;
}

const BATCH = 500;
const POLL_MS = 2000;

export async function startEventRelay(ctx: AppContext, spec: DatabaseSpec): Promise<EventRelay | null> {
  if (spec.kind !== 'postgres' || !isSharedStore(ctx.db)) return null;
  let last = await lastEventId(ctx.db);
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  const drain = async () => {
    for (;;) {
      const events = await eventsAfter(ctx.db, last, BATCH);
      for (const ev of events) {
        last = ev.id;
        ctx.bus.deliver(ev);
      }
      if (events.length < BATCH) return;
    }
  };
  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .catch((err) => ctx.log.error({ err }, 'event relay: reading new events failed'))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          wake();
        }
      });
  };

  ctx.bus.relayFromStore();
  const listener: CommitListener = listenForCommits(spec.url, EVENTS_CHANNEL, wake, (err) => ctx.log.warn({ err }, 'event relay: LISTEN session lost; reconnecting'));
  const poll = setInterval(wake, POLL_MS);
  poll.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(poll);
      await listener.close();
      await running;
    },
  };
}
