import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, ListQuery, Page, IdParams, Deleted, Opt, SearchQuery } from './common.js';
import { route } from './route.js';

export const THREAD_STATUSES = ['open', 'closed', 'archived'] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];

/** Label names: 1–64 printable characters (no control characters), compared exactly. */
export const LabelName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\u0000-\\u001f\\u007f]+$' });

/** compat.md: Thread. */
export const Thread = Type.Object({
  id: Type.String(),
  object: Type.Literal('thread'),
  agent_id: Type.String(),
  subject: Type.String(),
  last_message_at: Timestamp,
  message_count: Type.Integer(),
  participants: Type.Array(Type.String()),
  labels: Type.Array(Type.String()),
  status: Type.Enum(THREAD_STATUSES),
  /** Set while the thread is in the trash. */
  trashed_at: Opt(Timestamp),
  /** True once any live-mode message is in the thread. */
  has_live_mail: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Thread = Static<typeof Thread>;

export const ThreadMessage = Type.Object({
  id: Type.String(),
  direction: Type.Enum(['outbound', 'inbound'] as const),
  from: Type.String(),
  from_name: Opt(Type.String()),
  /**
   * Outbound entries: the recipient list. Inbound entries: the address the message was delivered
   * to, a string, as on a received message (compat.md); the To header's list is `to_all`.
   */
  to: Type.Union([Type.String(), Type.Array(Type.String())]),
  to_all: Type.Optional(Type.Array(Type.String())),
  cc: Type.Array(Type.String()),
  subject: Type.String(),
  snippet: Type.String(),
  /** A sent message's status, or `received`. */
  status: Type.String(),
  test_mode: Type.Boolean(),
  sent_at: Opt(Timestamp),
  received_at: Opt(Timestamp),
  created_at: Timestamp,
});
export type ThreadMessage = Static<typeof ThreadMessage>;

export const ThreadWithMessages = Type.Evaluate(Type.Intersect([Thread, Type.Object({ messages: Type.Array(ThreadMessage) })]));
export type ThreadWithMessages = Static<typeof ThreadWithMessages>;

export const ThreadListQuery = Type.Object(
  {
    ...ListQuery,
    agent_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    status: Type.Optional(Type.Enum(THREAD_STATUSES)),
    label: Type.Optional(LabelName),
    /** true: the trash; false (default): threads not in the trash. */
    trashed: Type.Optional(Type.Boolean()),
    /** Threads with at least one message matching the search. */
    q: SearchQuery,
  },
  { additionalProperties: false },
);
export type ThreadListQuery = Static<typeof ThreadListQuery>;

export const ThreadUpdate = Type.Object(
  {
    /** Replaces the thread's labels. */
    labels: Type.Optional(Type.Array(LabelName, { maxItems: 50 })),
    status: Type.Optional(Type.Enum(THREAD_STATUSES)),
  },
  { additionalProperties: false },
);
export type ThreadUpdate = Static<typeof ThreadUpdate>;

export const Label = Type.Object({
  id: Type.String(),
  object: Type.Literal('label'),
  name: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Label = Static<typeof Label>;

export const LabelCreate = Type.Object({ name: LabelName }, { additionalProperties: false });
export type LabelCreate = Static<typeof LabelCreate>;

/** Threads may be filed, labelled and trashed by member-level keys (send) as well as by manage. */
const FILE = { anyOf: ['send', 'manage'] } as { anyOf: ('send' | 'manage')[] };

export const threadRoutes = {
  'threads.list': route({
    method: 'GET', path: '/threads', scope: 'read', summary: 'List threads, newest first',
    query: ThreadListQuery, status: 200, response: Page(Thread),
  }),
  'threads.get': route({
    method: 'GET', path: '/threads/:id', scope: 'read', summary: 'Retrieve a thread with its messages in order',
    params: IdParams, status: 200, response: ThreadWithMessages,
  }),
  'threads.update': route({
    method: 'PATCH', path: '/threads/:id', scope: FILE, summary: 'Change a thread\'s labels or status',
    params: IdParams, body: ThreadUpdate, status: 200, response: Thread,
  }),
  'threads.trash': route({
    method: 'POST', path: '/threads/:id/trash', scope: FILE, summary: 'Move a thread to the trash',
    params: IdParams, status: 200, response: Thread,
  }),
  'threads.restore': route({
    method: 'POST', path: '/threads/:id/restore', scope: FILE, summary: 'Restore a thread from the trash',
    params: IdParams, status: 200, response: Thread,
  }),
  'threads.delete': route({
    method: 'DELETE', path: '/threads/:id', scope: 'manage', summary: 'Delete a thread and its mail for good',
    params: IdParams, status: 200, response: Deleted,
  }),
  'labels.list': route({
    method: 'GET', path: '/labels', scope: 'read', summary: 'List labels',
    query: Type.Object(ListQuery, { additionalProperties: false }), status: 200, response: Page(Label),
  }),
  'labels.create': route({
    method: 'POST', path: '/labels', scope: FILE, summary: 'Create a label',
    unboundOnly: 'create a label', body: LabelCreate, status: 201, response: Label,
  }),
  'labels.update': route({
    method: 'PATCH', path: '/labels/:id', scope: FILE, summary: 'Rename a label (on every thread too)',
    unboundOnly: 'rename a label', params: IdParams, body: LabelCreate, status: 200, response: Label,
  }),
  'labels.delete': route({
    method: 'DELETE', path: '/labels/:id', scope: FILE, summary: 'Delete a label (removed from every thread)',
    unboundOnly: 'delete a label', params: IdParams, status: 200, response: Deleted,
  }),
};
