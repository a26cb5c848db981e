import type { Event, EventType } from '../contract/events.js';
import { WILDCARD_EXCLUDED, omitAbsentEvent } from '../contract/events.js';
import { insertEvent, orderEventWrite } from '../db/repos/events.js';
import { idAt, newId, newIdAt } from '../shared/ids.js';
import { isoAt } from '../shared/clock.js';
import type { AppContext, Tx } from './context.js';
import { ReadCache } from './read-cache.js';

export interface ClassificationFields {
  intent: string;
  urgency: number;
  injection_score: number;
  injection_categories: string[];
  sender_reputation: number;
  entities: Record<string, unknown>;
  classifier_model: string;
}

export interface EmitInput {
  type: EventType;
  workspaceId: string;
  agentId?: string | null;
  threadId?: string | null;
  sourceMessageId?: string | null;
  testMode: boolean;
  classification?: ClassificationFields;
  quarantined?: boolean;
  data: Record<string, unknown>;
}

/** Does an endpoint subscribed to `subscribed` receive `type`? (spec: Webhook endpoint → event_types). */
export function endpointWants(subscribed: string[], type: string): boolean {
  if (subscribed.includes(type)) return true;
  return subscribed.includes('*') && !(WILDCARD_EXCLUDED as readonly string[]).includes(type);
}

/**
 * Write one event in the caller's transaction, with a pending delivery row for every webhook
 * endpoint of the workspace that wants it (paused endpoints too: they are delivered once the
 * endpoint is active again). Subscribers of the bus hear of it only after the commit.
 */
/**
 * A workspace's live webhook endpoints (id and subscribed types), read by every event: kept while
 * nothing writes the webhook_endpoints table (services/read-cache.ts), so a send's two events do
 * not each SELECT them. A new, edited or deleted endpoint is seen by the very next event.
 */
const endpointCache = new ReadCache<{ id: string; eventTypes: string[] }[]>(['webhook_endpoints'], 1000);

/** Events this daemon wrote with no webhook delivery row (the delivery worker need not look). */
const undelivered = new WeakSet<object>();

/**
 * Whether an event heard on the bus is known to have no webhook delivery: written here with no
 * endpoint wanting it. False for anything else (events relayed from other daemons included).
 */
export function hasNoDeliveries(event: object): boolean {
  return undelivered.has(event);
}

export async function emitEvent(ctx: AppContext, tx: Tx, input: EmitInput): Promise<Event> {
  // Read before the event's turn is taken (orderEventWrite: on PostgreSQL every event writer of
  // the cluster waits for the one holding it until it commits), so the turn is held for fewer
  // statements.
  const endpoints = endpointCache.peek(ctx, input.workspaceId) ?? await endpointCache.get(ctx, input.workspaceId, async () =>
    (await tx.db.selectFrom('webhook_endpoints').select(['id', 'event_types'])
      .where('workspace_id', '=', input.workspaceId).where('deleted_at', 'is', null).execute())
      .map((e) => ({ id: e.id, eventTypes: JSON.parse(e.event_types) as string[] })));
  const now = ctx.clock.now();
  // Neither step makes a promise on SQLite (a send's two events pass here inside its transaction).
  const turn = orderEventWrite(tx.db, now);
  const orderedAt = turn === null ? null : await turn;
  // The id's time is never before `now`, the event's created_at (a `since` filter bounds the id
  // on that: repos/events.ts listEvents).
  const id = orderedAt === null ? newIdAt('evt', now) : idAt('evt', orderedAt);
  const event: Event = {
    id,
    object: 'event',
    type: input.type,
    workspace_id: input.workspaceId,
    agent_id: input.agentId ?? null,
    thread_id: input.threadId ?? null,
    source_message_id: input.sourceMessageId ?? null,
    ...(input.classification ?? {}),
    ...(input.quarantined !== undefined ? { quarantined: input.quarantined } : {}),
    test_mode: input.testMode,
    data: input.data,
    created_at: isoAt(now),
  };
  // Stored, delivered and streamed without its absent fields (the optional-field rule, contract/common.ts).
  omitAbsentEvent(event);
  const written = insertEvent(tx.db, event);
  if (written) await written;

  const wanted = endpoints.filter((e) => endpointWants(e.eventTypes, event.type));
  if (wanted.length) {
    const at = isoAt(now);
    await tx.db.insertInto('webhook_deliveries').values(wanted.map((e) => ({
      id: newId('whd', ctx.clock),
      workspace_id: input.workspaceId,
      webhook_endpoint_id: e.id,
      event_id: event.id,
      attempt_number: 0,
      status: 'pending',
      http_status: null,
      response_body_excerpt: null,
      last_error: null,
      next_retry_at: at,
      delivered_at: null,
      created_at: at,
      updated_at: at,
    }))).execute();
  }
  if (!wanted.length) undelivered.add(event);
  tx.afterCommit(() => ctx.bus.publish(event));
  return event;
}
