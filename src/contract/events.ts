import { Type, type Static } from 'typebox';
import { Nullable, Timestamp } from './common.js';
import type { RouteDef } from './route.js';

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

export const Event = Type.Object({
  id: Type.String(),
  object: Type.Literal('event'),
  type: Type.String(),
  workspace_id: Type.String(),
  agent_id: Nullable(Type.String()),
  thread_id: Nullable(Type.String()),
  source_message_id: Nullable(Type.String()),
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

/** Routes of the events group are added by the events issue. */
export const eventRoutes = {} satisfies Record<string, RouteDef>;
