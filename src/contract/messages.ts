import { Type, type Static } from 'typebox';
import { Nullable, Opt, Timestamp, ListQuery, Page, IdParams, StringMap, EmptyBody, SearchQuery, ERROR_MESSAGE, NO_CONTROL_CHARS } from './common.js';
import { route } from './route.js';

/** Spec: Limits → Single-message payload. */
export const SEND_LIMITS = {
  recipients: 50,
  subject: 998,
  body: 1_000_000,
  attachments: 10,
  attachmentBytes: 25 * 1024 * 1024,
  metadataKey: 64,
  metadataValue: 500,
  /** Not in the spec ("not shown"): Stripe's cap. A map of a million keys froze the daemon (storage, lists). */
  metadataKeys: 50,
  tags: 10,
  batch: 100,
  idempotencyKey: 255,
  /**
   * Not in the spec: how far ahead a send, a reschedule or a draft may be scheduled (days). A
   * scheduled send holds caps and a queue row until it goes out; `9999-12-31` held them forever.
   */
  scheduleHorizonDays: 365,
} as const;

export const ROUTING_POOLS = ['clean', 'mixed', 'outbound'] as const;
export type RoutingPool = (typeof ROUTING_POOLS)[number];

export const MESSAGE_STATUSES = ['sent', 'scheduled', 'canceled', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** `[ERROR_MESSAGE]` (contract/common.ts): what a refusal of that value says. */
export const Address = Type.String({ minLength: 1, maxLength: 998 });
export const AddressList = Type.Union([Address, Type.Array(Address, { maxItems: SEND_LIMITS.recipients })]);
const Body = Type.String({ maxLength: SEND_LIMITS.body });

export const Tag = Type.Object({ name: Type.String({ minLength: 1, maxLength: 256 }), value: Type.String({ maxLength: 256 }) });
export type Tag = Static<typeof Tag>;

const Base64 = Type.String({ pattern: '^[A-Za-z0-9+/\\s]*={0,2}\\s*$', [ERROR_MESSAGE]: 'is not base64' });

/**
 * A Subject header's one line: CR, LF and the other C0 controls (the wire would fold them to spaces,
 * and the stored message and its events would then say another subject than was sent) are refused;
 * a tab is allowed. A subschema of its own (`allOf`), so that its words are said only for it, not
 * for a number or an over-long subject: shared/schema-check.ts quotes the failing node's ERROR_MESSAGE.
 * The send request's subject and the simulator's (contract/received.ts).
 */
export const SUBJECT_LINE = {
  pattern: '^[^\\u0000-\\u0008\\u000a-\\u001f\\u007f]*$',
  [ERROR_MESSAGE]: 'must be one line: CR, LF and other control characters cannot go into a Subject header (a tab can)',
};

/** compat.md: attachment item `{filename, content_base64, content_type}` (one of content_base64 / content: services/send.ts). */
export const AttachmentInput = Type.Object({
  // Its name goes into the part's Content-Disposition and Content-Type headers and is shown by mail
  // clients and terminals: CR/LF (the wire would fold them, and the stored message would name
  // another file than the recipient sees), other controls and bidi overrides ("invoice\u202Efdp.exe"
  // shows as "invoiceexe.pdf") are refused, as in a display name (docs/outbound.md → Attachments).
  filename: Type.String({
    minLength: 1, maxLength: 255,
    allOf: [{
      pattern: NO_CONTROL_CHARS,
      [ERROR_MESSAGE]: 'must be a file name without control characters: CR, LF, tabs, other control characters and bidi overrides cannot go into an attachment\'s name',
    }],
  }),
  content_base64: Type.Optional(Base64),
  /** Alias some clients send for content_base64. */
  content: Type.Optional(Base64),
  content_type: Type.Optional(Type.String({
    maxLength: 255, pattern: '^\\s*[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+\\s*$', [ERROR_MESSAGE]: 'is not a MIME type such as application/pdf',
  })),
}, { additionalProperties: true });

/**
 * Metadata (spec: Limits): string values up to 500 characters, keys 1 to 64 (a record's key
 * schema does not constrain keys in JSON Schema, hence `propertyNames`), at most 50 keys.
 */
export const SendMetadata = Type.Record(Type.String(), Type.String({ maxLength: SEND_LIMITS.metadataValue }), {
  maxProperties: SEND_LIMITS.metadataKeys,
  propertyNames: {
    type: 'string', minLength: 1, maxLength: SEND_LIMITS.metadataKey,
    [ERROR_MESSAGE]: `is not a valid key: metadata keys must be 1 to ${SEND_LIMITS.metadataKey} characters long`,
  },
});

/**
 * The send request (spec: Messages → Send request fields, plus compat.md extras): the one
 * definition of its shape. fastify validates POST /v1/messages, reply and forward with it, and
 * services/send.ts checks every other send (batch items, drafts) against the same schema, so that
 * one bad batch item stays inline; the service adds only what a schema cannot say (one mailbox per
 * address, which fields are required together, the decoded attachment total). Send routes
 * tolerate unknown fields.
 */
export const SendRequest = Type.Object({
  agent: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
  // Its display name goes into the From header as an agent's display_name does: the same characters refused (bidi overrides spoofed "Bank security").
  from: Type.Optional(Type.String({ minLength: 1, maxLength: 998, pattern: NO_CONTROL_CHARS })),
  to: Type.Optional(AddressList),
  cc: Type.Optional(AddressList),
  bcc: Type.Optional(AddressList),
  reply_to: Type.Optional(AddressList),
  // One header line (SUBJECT_LINE).
  subject: Type.Optional(Type.String({ maxLength: SEND_LIMITS.subject, allOf: [SUBJECT_LINE] })),
  body_text: Type.Optional(Body),
  body_html: Type.Optional(Body),
  text: Type.Optional(Body),
  html: Type.Optional(Body),
  body: Type.Optional(Body),
  tags: Type.Optional(Type.Array(Tag, { maxItems: SEND_LIMITS.tags })),
  metadata: Type.Optional(SendMetadata),
  attachments: Type.Optional(Type.Array(AttachmentInput, { maxItems: SEND_LIMITS.attachments })),
  scheduled_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  // Misnamings of scheduled_at taken as it (docs/outbound.md → Scheduling): drafts call the same
  // time `send_at`, and camelCase clients write `scheduledAt`/`sendAt`. Ignored as unknown fields
  // (compat.md), they sent the message at once.
  send_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  scheduledAt: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  sendAt: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  references: Type.Optional(Type.Array(Type.String({
    minLength: 1, maxLength: 998,
    // eslint-disable-next-line no-control-regex
    pattern: '^\\s*<?[^\\s<>\\u0000-\\u001f\\u007f]+>?\\s*$', [ERROR_MESSAGE]: 'is not a Message-ID such as <abc@example.com>',
  }), { maxItems: 100 })),
  in_reply_to_message_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
  pool_hint: Type.Optional(Type.Enum(['clean', 'mixed'] as const)),
}, { additionalProperties: true });
export type SendRequest = Static<typeof SendRequest>;

export const ReplyRequest = Type.Evaluate(Type.Intersect([
  SendRequest,
  Type.Object({ reply_all: Type.Optional(Type.Boolean()) }, { additionalProperties: true }),
]));
export type ReplyRequest = Static<typeof ReplyRequest>;

export const ClassifierWarning = Type.Object({
  code: Type.Literal('cold_email_prohibited'),
  message: Type.String(),
  score: Type.Number(),
  reason: Type.Enum(['cold_outreach', 'bulk_marketing', 'spam', 'unclear'] as const),
});
export type ClassifierWarning = Static<typeof ClassifierWarning>;

export const AttachmentInfo = Type.Object({
  id: Type.String(),
  filename: Type.String(),
  content_type: Type.String(),
  size: Type.Integer(),
});

/**
 * Sent message (spec: Resources → Sent message). The send response carries the short set; the
 * retrieve response the full set (spec rule); compat.md adds `from` and `scheduled_at`.
 */
export const SentMessage = Type.Object({
  id: Type.String(),
  object: Type.Literal('message'),
  agent_id: Type.String(),
  thread_id: Type.String(),
  from: Type.String(),
  to: Type.Array(Type.String()),
  cc: Type.Optional(Type.Array(Type.String())),
  bcc: Type.Optional(Type.Array(Type.String())),
  reply_to: Type.Optional(Type.Array(Type.String())),
  subject: Type.String(),
  body_text: Opt(Type.String()),
  body_html: Opt(Type.String()),
  /** List items only: the start of the text body, ≤ 200 characters (retrieve gives the bodies). */
  body_text_excerpt: Type.Optional(Type.String()),
  classifier_score: Type.Number(),
  /**
   * compat.md / the hosted SDK's SendResult: the sending pool this message was routed to, derived
   * from the screen (docs/outbound.md → Routing pool): `clean` (score below 0.5 and no `mixed`
   * hint), `mixed` (score 0.5 up to the block line, or `pool_hint: mixed`), `outbound` (content the
   * screen refuses: an overturned appeal's isolated pool, or a test send with a classifier_warning).
   */
  routing_pool: Type.Enum(ROUTING_POOLS),
  status: Type.Enum(MESSAGE_STATUSES),
  cost_usd: Type.Number(),
  transport_message_id: Opt(Type.String()),
  attachments: Type.Optional(Type.Array(AttachmentInfo)),
  references: Type.Optional(Type.Array(Type.String())),
  metadata: Type.Optional(StringMap),
  tags: Type.Array(Tag),
  scheduled_at: Opt(Timestamp),
  sent_at: Opt(Timestamp),
  delivered_at: Opt(Timestamp),
  canceled_at: Opt(Timestamp),
  created_at: Timestamp,
  test_mode: Type.Boolean(),
  in_reply_to_message_id: Type.Optional(Type.String()),
  forwarded_from: Type.Optional(Type.String()),
  classifier_warning: Type.Optional(ClassifierWarning),
  error_message: Opt(Type.String()),
});
export type SentMessage = Static<typeof SentMessage>;

const ErrorItem = Type.Object({
  error: Type.Object({
    type: Type.String(),
    code: Type.String(),
    message: Type.String(),
    param: Nullable(Type.String()),
    request_id: Type.String(),
  }, { additionalProperties: true }),
});

export const BatchResult = Type.Object({
  data: Type.Array(Type.Union([SentMessage, ErrorItem])),
  batch_size: Type.Integer(),
});

export const AttachmentParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  attachment_id: Type.String({ minLength: 1, maxLength: 200 }),
});

export const MessageListQuery = Type.Object({
  ...ListQuery,
  agent_id: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
  thread_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  q: SearchQuery,
}, { additionalProperties: false });
export type MessageListQuery = Static<typeof MessageListQuery>;

export const Reschedule = Type.Object({ scheduled_at: Type.String({ format: 'date-time' }) }, { additionalProperties: false });
export const Rescheduled = Type.Object({ id: Type.String(), scheduled_at: Timestamp, status: Type.Literal('scheduled') });
export const Canceled = Type.Object({ id: Type.String(), status: Type.Literal('canceled'), canceled_at: Timestamp });

export const AppealRequest = Type.Object({
  agent: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
  subject: Type.String({ maxLength: SEND_LIMITS.subject }),
  body_text: Type.Optional(Nullable(Body)),
  body_html: Type.Optional(Nullable(Body)),
  to: Type.Optional(AddressList),
}, { additionalProperties: true });
export type AppealRequest = Static<typeof AppealRequest>;

export const AppealResult = Type.Object({
  outcome: Type.Enum(['overturned', 'upheld', 'not_appealable', 'not_blocked'] as const),
  message: Type.String(),
  review_score: Type.Optional(Type.Number()),
  reason: Type.Optional(Type.String()),
  replayed: Type.Optional(Type.Boolean()),
});
export type AppealResult = Static<typeof AppealResult>;

const SEND_BODY_LIMIT = 48 * 1024 * 1024;

export const messageRoutes = {
  'messages.create': route({
    method: 'POST', path: '/messages', scope: 'send', summary: 'Send a message', send: true,
    bodyLimit: SEND_BODY_LIMIT, body: SendRequest, status: 201, response: SentMessage,
  }),
  'messages.batch': route({
    method: 'POST', path: '/messages/batch', scope: 'send', summary: 'Send up to 100 messages in one request', send: true,
    bodyLimit: SEND_BODY_LIMIT * 2, body: Type.Unknown(), status: 201, response: BatchResult,
  }),
  'messages.appeal': route({
    method: 'POST', path: '/messages/appeal', scope: 'send', summary: 'Appeal a cold-email refusal', send: true,
    body: AppealRequest, status: 200, response: AppealResult,
  }),
  'messages.list': route({
    method: 'GET', path: '/messages', scope: 'read', summary: 'List sent messages, newest first',
    query: MessageListQuery, status: 200, response: Page(SentMessage),
  }),
  'messages.get': route({
    method: 'GET', path: '/messages/:id', scope: 'read', summary: 'Retrieve a sent message',
    params: IdParams, status: 200, response: SentMessage,
  }),
  'messages.reschedule': route({
    method: 'PATCH', path: '/messages/:id', scope: { allOf: ['manage', 'send'] }, summary: 'Reschedule a scheduled message',
    params: IdParams, body: Reschedule, status: 200, response: Rescheduled,
  }),
  'messages.reply': route({
    method: 'POST', path: '/messages/:id/reply', scope: 'send', summary: 'Reply to a sent or received message', send: true,
    bodyLimit: SEND_BODY_LIMIT, params: IdParams, body: ReplyRequest, status: 201, response: SentMessage,
  }),
  'messages.forward': route({
    method: 'POST', path: '/messages/:id/forward', scope: 'send', summary: 'Forward a sent or received message', send: true,
    bodyLimit: SEND_BODY_LIMIT, params: IdParams, body: SendRequest, status: 201, response: SentMessage,
  }),
  'messages.cancel': route({
    method: 'POST', path: '/messages/:id/cancel', scope: 'manage', summary: 'Cancel a scheduled message',
    params: IdParams, body: EmptyBody, status: 200, response: Canceled,
  }),
  'messages.attachment': route({
    method: 'GET', path: '/messages/:id/attachments/:attachment_id', scope: 'read',
    summary: 'Download an attachment of a sent or received message',
    params: AttachmentParams, status: 200, response: null, produces: 'application/octet-stream',
  }),
  'messages.raw': route({
    method: 'GET', path: '/messages/:id/raw', scope: 'read', summary: 'Download a message as RFC 822 (.eml)',
    params: IdParams, status: 200, response: null, produces: 'message/rfc822',
  }),
};
