import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, ListQuery, Page, IdParams, StringMap, Deleted, Opt } from './common.js';
import { route } from './route.js';
import { SEND_LIMITS, Tag, SendRequest } from './messages.js';

export const DRAFT_STATUSES = ['draft', 'scheduled', 'sending', 'sent', 'failed', 'canceled'] as const;
export type DraftStatus = (typeof DRAFT_STATUSES)[number];

const Body = Type.String({ maxLength: SEND_LIMITS.body });
const When = Type.String({ format: 'date-time' });

/** compat.md: Draft. */
export const Draft = Type.Object({
  id: Type.String(),
  object: Type.Literal('draft'),
  agent_id: Type.String(),
  to: Type.Array(Type.String()),
  cc: Type.Array(Type.String()),
  bcc: Type.Array(Type.String()),
  subject: Type.String(),
  body_text: Opt(Type.String()),
  body_html: Opt(Type.String()),
  /** List items only, instead of the bodies: the start of the text body, ≤ 200 characters. */
  body_text_excerpt: Type.Optional(Type.String()),
  status: Type.Enum(DRAFT_STATUSES),
  send_at: Opt(Timestamp),
  sent_message_id: Opt(Type.String()),
  thread_id: Opt(Type.String()),
  error_message: Opt(Type.String()),
  tags: Type.Array(Tag),
  metadata: StringMap,
  test_mode: Type.Boolean(),
  sent_at: Opt(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Draft = Static<typeof Draft>;

/**
 * The draft's content: the send request's fields (the same schemas: contract/messages.ts
 * SendRequest), every one optional until the draft is sent; the bodies may be null (cleared).
 */
const Send = SendRequest.properties;
const DraftFields = {
  to: Send.to,
  cc: Send.cc,
  bcc: Send.bcc,
  reply_to: Send.reply_to,
  subject: Send.subject,
  body_text: Type.Optional(Nullable(Body)),
  body_html: Type.Optional(Nullable(Body)),
  text: Send.text,
  html: Send.html,
  body: Send.body,
  tags: Send.tags,
  metadata: Send.metadata,
  attachments: Send.attachments,
  in_reply_to_message_id: Send.in_reply_to_message_id,
  references: Send.references,
};

export const DraftCreate = Type.Object(
  {
    agent: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    from: Type.Optional(Type.String({ minLength: 1, maxLength: 998 })),
    ...DraftFields,
    /** A future time makes a scheduled draft (needs the `send` scope). */
    send_at: Type.Optional(Nullable(When)),
  },
  { additionalProperties: false },
);
export type DraftCreate = Static<typeof DraftCreate>;

export const DraftUpdate = Type.Object(
  {
    ...DraftFields,
    /** A future time schedules the draft, null unschedules it (both need the `send` scope). */
    send_at: Type.Optional(Nullable(When)),
  },
  { additionalProperties: false },
);
export type DraftUpdate = Static<typeof DraftUpdate>;

export const DraftSendRequest = Type.Object(
  { send_at: Type.Optional(Nullable(When)) },
  { additionalProperties: true },
);
export type DraftSendRequest = Static<typeof DraftSendRequest>;

/** compat.md: `{id, status, message_id?, thread_id?, sent_at?, send_at?}`. */
export const DraftSendResult = Type.Object({
  id: Type.String(),
  status: Type.Enum(DRAFT_STATUSES),
  message_id: Type.Optional(Type.String()),
  thread_id: Type.Optional(Type.String()),
  sent_at: Type.Optional(Timestamp),
  send_at: Type.Optional(Timestamp),
});
export type DraftSendResult = Static<typeof DraftSendResult>;

export const DraftListQuery = Type.Object(
  {
    ...ListQuery,
    status: Type.Optional(Type.Enum(DRAFT_STATUSES)),
    agent_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type DraftListQuery = Static<typeof DraftListQuery>;

// Spec: Scopes → draft lists, reads, creates, edits and deletes drafts but never sends or
// schedules one; Connected apps → draft routes accept send, read or manage.
const WRITE = { anyOf: ['draft', 'send', 'manage'] } as { anyOf: ('draft' | 'send' | 'manage')[] };
const READ = { anyOf: ['draft', 'read', 'send', 'manage'] } as { anyOf: ('draft' | 'read' | 'send' | 'manage')[] };

export const draftRoutes = {
  'drafts.create': route({
    method: 'POST', path: '/drafts', scope: WRITE, summary: 'Create a draft (a future send_at schedules it)',
    body: DraftCreate, status: 201, response: Draft, bodyLimit: 40 * 1024 * 1024,
  }),
  'drafts.list': route({
    method: 'GET', path: '/drafts', scope: READ, summary: 'List drafts, newest first',
    query: DraftListQuery, status: 200, response: Page(Draft),
  }),
  'drafts.get': route({
    method: 'GET', path: '/drafts/:id', scope: READ, summary: 'Retrieve a draft',
    params: IdParams, status: 200, response: Draft,
  }),
  'drafts.update': route({
    method: 'PATCH', path: '/drafts/:id', scope: WRITE, summary: 'Edit a draft',
    params: IdParams, body: DraftUpdate, status: 200, response: Draft, bodyLimit: 40 * 1024 * 1024,
  }),
  'drafts.delete': route({
    method: 'DELETE', path: '/drafts/:id', scope: WRITE, summary: 'Delete a draft',
    params: IdParams, status: 200, response: Deleted,
  }),
  'drafts.send': route({
    method: 'POST', path: '/drafts/:id/send', scope: 'send', summary: 'Send a draft now, or schedule it with send_at',
    params: IdParams, body: DraftSendRequest, status: 200, response: DraftSendResult, send: true,
  }),
};
