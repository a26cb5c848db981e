import type { Database, Db, EventsTable } from '../schema.js';
import { insertRow, insertRowNow } from '../insert-row.js';
import { omitAbsentEvent, type Event } from '../../contract/events.js';

/** Events written before the optional-field rule kept `null` for absent fields; read them as written now. */
const parseEvent = (payload: string): Event => omitAbsentEvent(JSON.parse(payload) as Event);
import { decodeCursor, orderedList, paginate, type PageRequest, type PageResult } from '../paginate.js';
import { sql, type SelectQueryBuilder } from 'kysely';
import { dialectOf } from '../dialect.js';
import { idFloorAt } from '../../shared/ids.js';

/** Channel on which a shared store announces committed events (PostgreSQL NOTIFY). */
export const EVENTS_CHANNEL = 'mailagent_events';

/**
 * Event ids must follow commit order: the live stream and its resume deliver "every event with
 * an id greater than the last one sent", so an event committed after another must never carry a
 * smaller id. SQLite has one writer and ids increase within the process: nothing to do (null).
 * PostgreSQL has concurrent writers, from several daemons: the event writers of the whole
 * cluster take turns (a transaction-scoped advisory lock, held until commit), and each takes the
 * time of its id from a sequence that only moves forward (max(next value, now)): sequences are
 * outside transactions, so the value is never a stale snapshot, and clocks of two machines that
 * differ a little cannot reorder ids. Returns that time (ms). The NOTIFY sent here reaches every
 * daemon's listener at commit, in commit order; it is only a wake-up, the table is the truth.
 */
export function orderEventWrite(db: Db, nowMs: number): Promise<number> | null {
  // null at once (no promise) on SQLite: every event of a send or an inbound message asks.
  if (dialectOf(db) !== 'postgres') return null;
  return takeEventTurn(db, nowMs);
}

async function takeEventTurn(db: Db, nowMs: number): Promise<number> {
  // One statement (one round trip while others may be waiting for the turn): the materialized CTE
  // takes the lock and queues the NOTIFY before its row exists, so the outer select reads the
  // sequence only once the turn is held.
  const r = await sql<{ at: string }>`with turn as materialized (select pg_advisory_xact_lock(7420018), pg_notify(${EVENTS_CHANNEL}, ''))
    select setval('event_clock', greatest(nextval('event_clock'), ${nowMs}::bigint)) as at from turn`.execute(db);
  return Number(r.rows[0].at);
}

/** Events committed after `afterId`, oldest first (the cluster relay catching up after a wake-up). */
export async function eventsAfter(db: Db, afterId: string | null, limit: number): Promise<Event[]> {
  let q = db.selectFrom('events').select('payload').orderBy('id').limit(limit);
  if (afterId) q = q.where('id', '>', afterId);
  return (await q.execute()).map((r) => parseEvent(r.payload));
}

export async function lastEventId(db: Db): Promise<string | null> {
  const r = await db.selectFrom('events').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return r?.id ?? null;
}

/** Written at once where it can be (insertRowNow: no promise); otherwise the promise of the write. */
export function insertEvent(db: Db, event: Event): Promise<void> | void {
  const row: EventsTable = {
    id: event.id,
    workspace_id: event.workspace_id,
    agent_id: event.agent_id ?? null,
    thread_id: event.thread_id ?? null,
    type: event.type,
    test_mode: event.test_mode ? 1 : 0,
    payload: JSON.stringify(event),
    created_at: event.created_at,
  };
  if (!insertRowNow(db, 'events', row)) return insertRow(db, 'events', row);
}

export async function getEvent(db: Db, workspaceId: string, id: string): Promise<Event | undefined> {
  const r = await db.selectFrom('events').select('payload').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return r && parseEvent(r.payload);
}

export interface EventFilter {
  agentId?: string | null;
  type?: string | null;
  types?: string[] | null;
  since?: string | null;
  afterId?: string | null;
}

/** Types listed together (`event_type=a,b`) up to this many are read one index range each (listEvents). */
const TYPE_RANGES_MAX = 16;

export async function listEvents(db: Db, workspaceId: string, f: EventFilter, page: PageRequest, order: 'desc' | 'asc' = 'desc'): Promise<PageResult<Event>> {
  // The filters other than the type, on the outer query and on each per-type range below.
  const filtered = <Q extends SelectQueryBuilder<Database, 'events', object>>(query: Q): Q => {
    let q = query.where('workspace_id', '=', workspaceId);
    if (f.agentId) q = q.where('agent_id', '=', f.agentId);
    if (f.since) {
      q = q.where('created_at', '>=', f.since);
      // An event's id is never earlier than its created_at (services/events.ts emitEvent: both from
      // one instant; on PostgreSQL the id's time is max(event clock, now)), so the same bound on the
      // id is implied: it makes the filter a range of the id-ordered index the page walks (no
      // created_at index: migration 0028), instead of a scan of every older event of the workspace.
      const ms = Date.parse(f.since);
      if (Number.isFinite(ms)) q = q.where('id', '>=', idFloorAt('evt', ms));
    }
    if (f.afterId) q = q.where('id', '>', f.afterId);
    return q as Q;
  };
  let q = filtered(db.selectFrom('events').select(['id', 'payload']));
  if (f.type) q = q.where('type', '=', f.type);
  const types = f.types ?? [];
  if (types.length > 1 && types.length <= TYPE_RANGES_MAX && !f.type) {
    // Several types: walking the workspace's events in id order and testing each read every event
    // when the types are rare (bounces among a million deliveries). Instead, each type's next page
    // from events_type (workspace, type, id), and the page is taken from those few rows: O(page
    // × types) whatever the table holds (bench/README.md, round 2 session 10).
    const limit = page.limit ?? 25;
    const after = page.cursor ? decodeCursor(orderedList('events', order), page.cursor) : null;
    const ranges = types.map((t) => {
      let r = filtered(db.selectFrom('events').select('id')).where('type', '=', t);
      if (after) r = r.where('id', order === 'desc' ? '<' : '>', after);
      return db.selectFrom(r.orderBy('id', order).limit(limit + 1).as('r')).select('r.id');
    });
    q = q.where('id', 'in', ranges.slice(1).reduce((u, r) => u.unionAll(r), ranges[0]));
  } else if (types.length) {
    q = q.where('type', 'in', types);
  }
  const res = await paginate<{ id: string; payload: string }>(q, 'id', page, 'events', order);
  return { ...res, rows: res.rows.map((r) => parseEvent(r.payload)) };
}
