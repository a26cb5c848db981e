import type { Db, EventsTable } from '../schema.js';
import { Event as EventSchema, type Event } from '../../contract/events.js';
import { omitAbsent } from '../../contract/common.js';

/** Events written before the optional-field rule kept `null` for absent fields; read them as written now. */
const parseEvent = (payload: string): Event => omitAbsent(EventSchema, JSON.parse(payload) as Event);
import { paginate, type PageRequest, type PageResult } from '../paginate.js';

export async function insertEvent(db: Db, event: Event): Promise<void> {
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
  await db.insertInto('events').values(row).execute();
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

export async function listEvents(db: Db, workspaceId: string, f: EventFilter, page: PageRequest, order: 'desc' | 'asc' = 'desc'): Promise<PageResult<Event>> {
  let q = db.selectFrom('events').select(['id', 'payload']).where('workspace_id', '=', workspaceId);
  if (f.agentId) q = q.where('agent_id', '=', f.agentId);
  if (f.type) q = q.where('type', '=', f.type);
  if (f.types && f.types.length) q = q.where('type', 'in', f.types);
  if (f.since) q = q.where('created_at', '>=', f.since);
  if (f.afterId) q = q.where('id', '>', f.afterId);
  const res = await paginate<{ id: string; payload: string }>(q, 'id', page, order);
  return { ...res, rows: res.rows.map((r) => parseEvent(r.payload)) };
}
