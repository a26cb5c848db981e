import { Type, type Static } from 'typebox';
import { IdParams, ListQuery, Nullable, Opt, Page, SearchQuery, Timestamp } from './common.js';
import { route, type RouteDef } from './route.js';
import { SUBJECT_LINE } from './messages.js';

/**
 * The injection categories the classifier reports (docs/classifier.md);
 * `action_request` (classifier 2.0) marks mail that asks for a privileged,
 * side-effecting action. Kept equal to src/classifier's list by a test; the
 * field stays a string array so older clients keep parsing it.
 */
/** A received message's SPF/DKIM results read as a failure: a check failed and none passed (part of `authentication_failed`). */
export function checksFailed(spf: boolean | null, dkim: boolean | null): boolean {
  return (spf === false || dkim === false) && spf !== true && dkim !== true;
}

export const INJECTION_CATEGORIES = ['instruction_override', 'role_hijack', 'data_exfiltration', 'tool_invocation', 'boundary_manipulation', 'encoding_tricks', 'hidden_content', 'action_request'] as const;
/** `entities.action_requests[].action`: the privileged actions the classifier recognises. */
export const REQUESTED_ACTIONS = ['forward_mail', 'grant_access', 'transfer_money', 'change_payment_details', 'change_credentials', 'reveal_secrets', 'delete_data', 'contact_third_party', 'install_or_run'] as const;
/** One entry of `entities.action_requests` (present when intent classification is on and the mail asks for such an action). */
export const ActionRequestEntity = Type.Object({ action: Type.Enum(REQUESTED_ACTIONS), text: Type.String() });

/** Spec: Classification (result of the inbound classifier). */
export const Classification = Type.Object({
  intent: Type.String(),
  entities: Type.Record(Type.String(), Type.Unknown()),
  urgency: Type.Number(),
  injection_score: Type.Number(),
  injection_categories: Type.Array(Type.String()),
  sender_reputation: Type.Number(),
  classifier_model: Type.String(),
});
export type Classification = Static<typeof Classification>;

export const OVER_LIMIT = ['plus_address_limit', 'held_code'] as const;
export type OverLimitReason = (typeof OVER_LIMIT)[number];

/** Why mail was held (only a record kept), in the words the SMTP reply and `mailagent wait` use. */
export const OVER_LIMIT_REASONS: Record<OverLimitReason, string> = {
  held_code: 'a sign-in code or verify/reset link from an account provider, bank or payment app is not delivered to a plus address',
  plus_address_limit: "the workspace's distinct plus addresses for the last 24 hours are used up (Free 20, Pro 1,000, Scale 10,000)",
};

/** compat.md: Received message (list responses give excerpts only). */
export const ReceivedMessageSummary = Type.Object({
  id: Type.String(),
  object: Type.Literal('received_message'),
  agent_id: Type.String(),
  thread_id: Opt(Type.String()),
  from: Type.Object({ address: Type.String(), name: Opt(Type.String()) }),
  /**
   * compat.md: the address this copy was delivered to (the envelope recipient, a plus address
   * included) — a string, as the hosted clients type it. The To header's full list is `to_all`.
   */
  to: Type.String(),
  /** Every address of the To header. */
  to_all: Type.Array(Type.String()),
  cc: Type.Array(Type.String()),
  /** The envelope recipient this copy was delivered to (same as `to`; kept for earlier callers). */
  delivered_to: Type.String(),
  plus_address: Opt(Type.String()),
  subject: Type.String(),
  extracted_text: Type.String(),
  body_text_excerpt: Type.String(),
  message_id: Opt(Type.String()),
  in_reply_to_message_id: Opt(Type.String()),
  /** Tri-state: null means not checked or no policy to check (SPF/DKIM `none`, a temporary DNS error) — a value, not an absent field. */
  spf_pass: Nullable(Type.Boolean()),
  dkim_pass: Nullable(Type.Boolean()),
  dmarc: Opt(Type.String()),
  /**
   * mailagent addition: the --trusted-networks CIDR the SMTP client was in. Such mail counts as
   * authenticated (message.received) but SPF and DKIM were not checked: spf_pass/dkim_pass are null.
   */
  trusted_network: Type.Optional(Type.String()),
  /**
   * mailagent addition: the sender failed authentication — its event was
   * message.received.unauthenticated (SPF and DKIM both failed, or a forged From on one of this
   * server's own domains), or a check failed and none passed. `wait --extract` and `mails.extract`
   * pass such mail over unless asked to accept it (docs/inbound.md → Who sent it).
   */
  authentication_failed: Type.Boolean(),
  classification: Opt(Classification),
  quarantined: Type.Boolean(),
  test_mode: Type.Boolean(),
  over_limit: Opt(Type.Enum(OVER_LIMIT)),
  source: Type.Enum(['smtp', 'local', 'simulator'] as const),
  size: Type.Integer(),
  received_at: Timestamp,
  /**
   * mailagent addition: true when the per-message processing budget cut parsing or classification
   * short (docs/inbound.md "Limits"); bodies and classification hold what could be extracted, the
   * raw bytes are complete.
   */
  extraction_truncated: Type.Boolean(),
  /** False until the mail is marked read (POST /v1/messages/received/{id}/read). */
  read: Type.Boolean(),
});
export type ReceivedMessageSummary = Static<typeof ReceivedMessageSummary>;

export const ReceivedAttachment = Type.Object({
  id: Type.String(),
  filename: Opt(Type.String()),
  content_type: Type.String(),
  content_id: Opt(Type.String()),
  disposition: Opt(Type.String()),
  size: Type.Integer(),
  sha256: Type.String(),
});

/** Retrieve adds the full bodies, headers, attachments and `raw_url`. */
export const ReceivedMessage = Type.Evaluate(Type.Intersect([
  ReceivedMessageSummary,
  Type.Object({
    body_text: Opt(Type.String()),
    body_html: Opt(Type.String()),
    headers: Type.Array(Type.Object({ name: Type.String(), value: Type.String() })),
    in_reply_to: Opt(Type.String()),
    references: Type.Array(Type.String()),
    attachments: Type.Array(ReceivedAttachment),
    raw_url: Opt(Type.String()),
  }),
]));
export type ReceivedMessage = Static<typeof ReceivedMessage>;

export const ReceivedListQuery = Type.Object(
  {
    ...ListQuery,
    agent_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    thread_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    q: SearchQuery,
  },
  { additionalProperties: false },
);
export type ReceivedListQuery = Static<typeof ReceivedListQuery>;

const PassFail = Type.Enum(['pass', 'fail'] as const);

/** Spec: POST /v1/test/inbound; compat.md adds `spf` / `dkim`. */
export const SimulateInbound = Type.Object(
  {
    agent: Type.String({ minLength: 1, maxLength: 320 }),
    from: Type.String({ minLength: 3, maxLength: 320, pattern: '^[^\\s@<>]+@[^\\s@<>]+$' }),
    from_name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    // One header line, as a send's subject (the simulated message is the same mail a sender could send).
    subject: Type.Optional(Type.String({ maxLength: 998, allOf: [SUBJECT_LINE] })),
    body_text: Type.Optional(Type.String({ maxLength: 1_000_000 })),
    body_html: Type.Optional(Type.String({ maxLength: 1_000_000 })),
    in_reply_to_message_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** A plus variant of the agent's address to deliver to (default: the agent's address). */
    to: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
    spf: Type.Optional(PassFail),
    dkim: Type.Optional(PassFail),
  },
  { additionalProperties: false },
);
export type SimulateInbound = Static<typeof SimulateInbound>;

export const SimulateInboundResult = Type.Object({
  message_id: Type.String(),
  thread_id: Type.String(),
  event_id: Type.String(),
  event_type: Type.String(),
  quarantined: Type.Boolean(),
  test_mode: Type.Boolean(),
  classification: Classification,
});

export const InboxWaitQuery = Type.Object(
  {
    /** The agent's address or one of its plus addresses (default: any mail to the agent). */
    address: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
    /** Only mail received at or after this time (ISO 8601), or after this rcv_ id. Default: now. */
    since: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    /** Seconds to wait, 0–60 (default 30). */
    timeout: Type.Optional(Type.Integer({ minimum: 0, maximum: 60, default: 30 })),
  },
  { additionalProperties: false },
);
export type InboxWaitQuery = Static<typeof InboxWaitQuery>;

/** A timeout is not an error: `timed_out` is true and `message` absent (`{"timed_out": true}`; absent fields are omitted, common.ts Opt). */
export const InboxWaitResult = Type.Object({
  /** Absent when the wait timed out. */
  message: Opt(ReceivedMessage),
  timed_out: Type.Boolean(),
});
export type InboxWaitResult = Static<typeof InboxWaitResult>;

export const MarkRead = Type.Object(
  { /** false marks the mail unread again (default true). */ read: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export const ReadState = Type.Object({ id: Type.String(), object: Type.Literal('received_message'), read: Type.Boolean() });

export const SanitizedHtmlQuery = Type.Object(
  {
    /** true loads remote images (a tracking pixel tells the sender the mail was opened); default false. */
    remote_images: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type SanitizedHtmlQuery = Static<typeof SanitizedHtmlQuery>;

export const receivedRoutes = {
  'received.list': route({
    method: 'GET', path: '/messages/received', scope: 'read', summary: 'List received messages (excerpts)',
    query: ReceivedListQuery, status: 200, response: Page(ReceivedMessageSummary),
  }),
  'received.get': route({
    method: 'GET', path: '/messages/received/:id', scope: 'read', summary: 'Retrieve a received message',
    params: IdParams, status: 200, response: ReceivedMessage,
  }),
  'received.read': route({
    method: 'POST', path: '/messages/received/:id/read', scope: 'read', summary: 'Mark a received message read or unread',
    params: IdParams, body: MarkRead, status: 200, response: ReadState,
  }),
  'received.html': route({
    method: 'GET', path: '/messages/received/:id/html', scope: 'read',
    summary: 'The HTML body sanitised for display (no scripts, forms or remote content unless asked), as a sandboxed page',
    params: IdParams, query: SanitizedHtmlQuery, status: 200, response: null, produces: 'text/html',
  }),
  'received.simulate': route({
    method: 'POST', path: '/test/inbound', scope: 'send', summary: 'Simulate inbound mail (test keys only)',
    body: SimulateInbound, status: 201, response: SimulateInboundResult, bodyLimit: 4 * 1024 * 1024, stores: true,
  }),
  'inbox.wait': route({
    method: 'GET', path: '/agents/:id/inbox/wait', scope: 'read', summary: 'Wait for the next message to an agent or plus address',
    params: IdParams, query: InboxWaitQuery, status: 200, response: InboxWaitResult,
  }),
} satisfies Record<string, RouteDef>;
