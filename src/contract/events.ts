import { Type, type Static, type TSchema } from 'typebox';
import { Nullable, Timestamp, ListQuery, Page, IdParams, Opt, omitAbsent } from './common.js';
import { route } from './route.js';
import { Agent } from './agents.js';
import { Draft } from './drafts.js';
import { SentMessage } from './messages.js';

/**
 * Every event type this service emits (spec: Events; compat.md: "Event types those clients know").
 * The four in WILDCARD_EXCLUDED are delivered only to endpoints that name them.
 */
export const EVENT_TYPES = [
  'message.sent',
  'message.scheduled',
  'message.canceled',
  'message.failed',
  'message.delivered',
  'message.delayed',
  'message.bounced',
  'message.complained',
  'message.received',
  'message.received.unauthenticated',
  'message.received.over_limit',
  'reply.received',
  'thread.created',
  'thread.updated',
  'thread.deleted',
  'suppression.added',
  'agent.created',
  'agent.paused',
  'agent.resumed',
  'agent.archived',
  'draft.created',
  'draft.updated',
  'draft.deleted',
  'draft.scheduled',
  'draft.sent',
  'draft.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const WILDCARD_EXCLUDED: readonly EventType[] = ['thread.created', 'thread.updated', 'thread.deleted', 'message.delayed'];
/**
 * The event types whose payload carries no message content (no subject, body, sender or draft):
 * a key without the `read` scope may subscribe a webhook to these only. Every other type (and
 * `*`) delivers what `read` lets a key fetch, so subscribing to it needs `read`.
 */
export const CONTENT_FREE_EVENT_TYPES: readonly EventType[] = ['agent.created', 'agent.paused', 'agent.resumed', 'agent.archived', 'suppression.added'];

export const Event = Type.Object({
  id: Type.String(),
  object: Type.Literal('event'),
  type: Type.String(),
  workspace_id: Type.String(),
  agent_id: Opt(Type.String()),
  thread_id: Opt(Type.String()),
  source_message_id: Opt(Type.String()),
  intent: Type.Optional(Type.String()),
  urgency: Type.Optional(Type.Number()),
  injection_score: Type.Optional(Type.Number()),
  injection_categories: Type.Optional(Type.Array(Type.String())),
  sender_reputation: Type.Optional(Type.Number()),
  entities: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  classifier_model: Type.Optional(Type.String()),
  quarantined: Type.Optional(Type.Boolean()),
  test_mode: Type.Boolean(),
  data: Type.Record(Type.String(), Type.Unknown()),
  created_at: Timestamp,
});
export type Event = Static<typeof Event>;

/*
 * What each event type carries in `data`, for the optional-field rule (api-foundation.md,
 * "Absent fields are omitted, never null"): a field declared Opt() is left out when it has no
 * value. `data` itself stays an open record at the API (more fields may come); these shapes only
 * say which of the fields an emitter writes may be absent. spf_pass/dkim_pass are tri-state and
 * keep their null.
 */
const ReceivedData = Type.Object({
  message_id: Type.String(),
  from: Type.String(),
  from_name: Opt(Type.String()),
  to: Type.String(),
  plus_address: Opt(Type.String()),
  subject: Opt(Type.String()),
  body_text_excerpt: Opt(Type.String()),
  extracted_text: Opt(Type.String()),
  thread_id: Opt(Type.String()),
  source_message_id: Type.String(),
  in_reply_to_message_id: Opt(Type.String()),
  rfc_message_id: Opt(Type.String()),
  spf_pass: Type.Optional(Nullable(Type.Boolean())),
  dkim_pass: Type.Optional(Nullable(Type.Boolean())),
  /** message.received.unauthenticated only: the From claims one of this server's own domains from outside (docs/inbound.md → Who sent it). */
  sender_forged: Type.Optional(Type.Literal(true)),
  over_limit: Opt(Type.String()),
  received_at: Timestamp,
});
const ThreadData = Type.Object({
  thread_id: Type.String(),
  subject: Opt(Type.String()),
  last_message_at: Opt(Timestamp),
  trashed_at: Opt(Timestamp),
});
const SuppressionData = Type.Object({ agent_id: Opt(Type.String()), reason: Opt(Type.String()) });
const AgentData = Type.Object({ agent: Agent });
const MessageData = Type.Object({ ...SentMessage.properties, error_message: Opt(Type.String()) });

const EVENT_DATA: Partial<Record<string, TSchema>> = {
  'message.received': ReceivedData, 'message.received.unauthenticated': ReceivedData,
  'message.received.over_limit': ReceivedData, 'reply.received': ReceivedData,
  'thread.created': ThreadData, 'thread.updated': ThreadData, 'thread.deleted': ThreadData,
  'suppression.added': SuppressionData,
  'agent.created': AgentData, 'agent.paused': AgentData, 'agent.resumed': AgentData, 'agent.archived': AgentData,
  'draft.created': Draft, 'draft.updated': Draft, 'draft.deleted': Draft, 'draft.scheduled': Draft, 'draft.sent': Draft, 'draft.failed': Draft,
  'message.sent': MessageData, 'message.scheduled': MessageData, 'message.canceled': MessageData, 'message.failed': MessageData,
};

/**
 * An event as it is stored, delivered to webhooks, streamed and listed: its absent fields left
 * out, in its envelope and in its `data` (by the shape of its type). Changes `event` in place.
 * The one place the rule is applied to events (services/events.ts when writing, db/repos/events.ts
 * when reading rows written before).
 */
export function omitAbsentEvent(event: Event): Event {
  omitAbsent(Event, event);
  const shape = EVENT_DATA[event.type];
  if (shape && event.data && typeof event.data === 'object') omitAbsent(shape, event.data);
  return event;
}

/** The event types an endpoint may subscribe to: every known type, plus `*`. */
export const WEBHOOK_EVENT_TYPES = ['*', ...EVENT_TYPES] as const;

export const EventListQuery = Type.Object(
  {
    ...ListQuery,
    /** One exact type, a comma-separated list, or the parameter repeated (as the stream's `event_types`). */
    event_type: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 4000 }), Type.Array(Type.String({ maxLength: 4000 }), { maxItems: 100 })])),
    agent_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** ISO 8601 time (offset optional, UTC when absent) or a plain date; parsed by the service. */
    since: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type EventListQuery = Static<typeof EventListQuery>;

export const EventStreamQuery = Type.Object(
  {
    /** An event id (resume after it) or a time (every event at or after it). */
    since: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    /** Comma-separated list of exact types (repeating the parameter also works). */
    event_types: Type.Optional(Type.Union([Type.String({ maxLength: 4000 }), Type.Array(Type.String({ maxLength: 4000 }), { maxItems: 100 })])),
    agent_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type EventStreamQuery = Static<typeof EventStreamQuery>;

export const EventRedeliver = Type.Object(
  {
    /** Limit the redelivery to these endpoints (default: every endpoint subscribed to the type). */
    webhook_endpoint_ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 100 })),
  },
  { additionalProperties: false },
);
export type EventRedeliver = Static<typeof EventRedeliver>;

export const EventRedelivered = Type.Object({
  event_id: Type.String(),
  webhook_endpoint_ids: Type.Array(Type.String()),
  scheduled_at: Timestamp,
});
export type EventRedelivered = Static<typeof EventRedelivered>;

export const eventRoutes = {
  'events.list': route({
    method: 'GET', path: '/events', scope: 'read', summary: 'List events, newest first',
    query: EventListQuery, status: 200, response: Page(Event),
  }),
  'events.stream': route({
    method: 'GET', path: '/events/stream', scope: 'read', summary: 'Follow events live (server-sent events)',
    query: EventStreamQuery, status: 200, response: null, produces: 'text/event-stream',
  }),
  'events.get': route({
    method: 'GET', path: '/events/:id', scope: 'read', summary: 'Retrieve an event',
    params: IdParams, status: 200, response: Event,
  }),
  'events.redeliver': route({
    method: 'POST', path: '/events/:id/redeliver', scope: 'manage', summary: 'Deliver an event to webhooks again',
    unboundOnly: 'replay events to webhooks', params: IdParams, body: EventRedeliver, status: 200, response: EventRedelivered,
  }),
};
