/**
 * The hosted service's TypeScript SDK types, rewritten as JSON schemas (TypeBox) so a test can
 * check our answers against them. Written from the SDK's published types as `../shared/spec/compat.md`,
 * the spec and issue #11 describe them — NOT derived from src/contract, so a change of our contract
 * that a hosted client could not read fails here.
 *
 * How TypeScript maps to these schemas:
 * - `field: T` → required; `field?: T` → `Type.Optional(T)`: the value may be absent but never
 *   `null` (a `null` where the SDK says `T | undefined` is exactly the mismatch issue #11 found);
 * - `T | null` only where the SDK (and the spec) type it so (API key `agent_id`, `last_used_at`,
 *   `expires_at`, `revoked_at`; webhook `description`, `secret_rotated_at`,
 *   `previous_secret_expires_at`; `/me` `agent`; received `spf_pass`/`dkim_pass`);
 * - TypeScript object types are open: extra fields are allowed (`additionalProperties` default).
 */
import { Type, type TSchema } from 'typebox';

const S = Type.String();
const N = Type.Number();
const B = Type.Boolean();
const Ts = Type.String({ format: 'date-time' });
const Opt = <T extends TSchema>(t: T) => Type.Optional(t);
const OrNull = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Arr = <T extends TSchema>(t: T) => Type.Array(t);
const Page = <T extends TSchema>(t: T) => Type.Object({ data: Arr(t), has_more: B, next_cursor: Opt(S) });

const TagT = Type.Object({ name: S, value: S });

export const ClassifierWarning = Type.Object({
  code: Type.Literal('cold_email_prohibited'),
  message: S,
  score: Type.Number({ minimum: 0, maximum: 1 }),
  reason: Type.Union(['cold_outreach', 'bulk_marketing', 'spam', 'unclear'].map((x) => Type.Literal(x))),
});

/** `SendResult`: what send, reply, forward and each batch item return. `routing_pool` is required. */
export const SendResult = Type.Object({
  id: S,
  agent_id: S,
  thread_id: S,
  to: Arr(S),
  subject: S,
  classifier_score: N,
  routing_pool: Type.Union([Type.Literal('clean'), Type.Literal('mixed'), Type.Literal('outbound')]),
  status: S,
  cost_usd: N,
  tags: Arr(TagT),
  test_mode: B,
  created_at: Ts,
  from: Opt(S),
  scheduled_at: Opt(Ts),
  in_reply_to_message_id: Opt(S),
  forwarded_from: Opt(S),
  classifier_warning: Opt(ClassifierWarning),
});

/** `SentMessage` (retrieve / list): the send result plus the full set, every extra optional. */
export const SentMessage = Type.Intersect([SendResult, Type.Object({
  cc: Opt(Arr(S)),
  body_text: Opt(S),
  body_html: Opt(S),
  transport_message_id: Opt(S),
  attachments: Opt(Arr(Type.Object({ filename: S }))),
  references: Opt(Arr(S)),
  metadata: Opt(Type.Record(S, S)),
  sent_at: Opt(Ts),
  delivered_at: Opt(Ts),
})]);

export const BatchResult = Type.Object({
  data: Arr(Type.Union([SendResult, Type.Object({ error: Type.Object({ type: S, code: S, message: S }) })])),
  batch_size: N,
});

export const Canceled = Type.Object({ id: S, status: Type.Literal('canceled'), canceled_at: Ts });

export const AppealResult = Type.Object({ outcome: S, message: S, review_score: Opt(N), reason: Opt(S), replayed: Opt(B) });

/** Received message: `to` is the address it was delivered to (a string). */
export const ReceivedMessage = Type.Object({
  id: S,
  agent_id: S,
  thread_id: Opt(S),
  from: Type.Object({ address: S, name: Opt(S) }),
  to: S,
  subject: S,
  extracted_text: S,
  body_text_excerpt: S,
  spf_pass: OrNull(B),
  dkim_pass: OrNull(B),
  received_at: Ts,
});
export const ReceivedMessageFull = Type.Intersect([ReceivedMessage, Type.Object({ body_text: Opt(S), body_html: Opt(S), raw_url: Opt(S) })]);

export const Classification = Type.Object({
  intent: S, entities: Type.Record(S, Type.Unknown()), urgency: N, injection_score: N, injection_categories: Arr(S),
  sender_reputation: N, classifier_model: S,
});
export const SimulateResult = Type.Object({
  message_id: S, thread_id: S, event_id: S, event_type: S, quarantined: B, test_mode: B, classification: Classification,
});

export const Agent = Type.Object({ id: S, name: S, email: S, domain: S, workspace_id: S, status: S, created_at: Ts });
export const AgentArchived = Type.Object({ id: S, status: Type.Literal('archived'), archived_at: Ts });

export const ApiKey = Type.Object({
  id: S, prefix: S, name: S, mode: Type.Union([Type.Literal('live'), Type.Literal('test')]), scopes: Arr(S),
  agent_id: OrNull(S), last_used_at: OrNull(Ts), expires_at: OrNull(Ts), revoked_at: OrNull(Ts), created_at: Ts,
});
export const ApiKeyCreated = Type.Intersect([ApiKey, Type.Object({ key: S })]);
export const ApiKeyRevoked = Type.Object({ id: S, revoked_at: Ts });

export const Me = Type.Object({
  api_key: Type.Object({ id: S, prefix: S, name: S, mode: S, scopes: Arr(S), agent_id: OrNull(S), last_used_at: OrNull(Ts), created_at: Ts }),
  workspace: Type.Object({ id: S, slug: S, display_name: S, tier: S, tier_status: S }),
  agent: OrNull(Agent),
});

export const Thread = Type.Object({
  id: S, agent_id: S, subject: S, last_message_at: Ts, message_count: N, participants: Arr(S), labels: Arr(S),
  status: Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('archived')]), created_at: Ts, updated_at: Ts,
});
const ThreadMessage = Type.Union([
  Type.Object({ id: S, direction: Type.Literal('outbound'), to: Arr(S) }),
  Type.Object({ id: S, direction: Type.Literal('inbound'), to: S }),
]);
export const ThreadWithMessages = Type.Intersect([Thread, Type.Object({ messages: Arr(ThreadMessage) })]);

export const Draft = Type.Object({
  id: S, agent_id: S, to: Arr(S), cc: Opt(Arr(S)), bcc: Opt(Arr(S)), subject: S, body_text: Opt(S), body_html: Opt(S),
  status: Type.Union(['draft', 'scheduled', 'sending', 'sent', 'failed', 'canceled'].map((x) => Type.Literal(x))),
  send_at: Opt(Ts), sent_message_id: Opt(S), error_message: Opt(S), tags: Opt(Arr(TagT)), created_at: Ts, updated_at: Ts,
});
export const DraftSent = Type.Object({ id: S, status: S, message_id: Opt(S), thread_id: Opt(S), sent_at: Opt(Ts), send_at: Opt(Ts) });
export const Deleted = Type.Object({ id: S, deleted_at: Ts });

export const Event = Type.Object({
  id: S, type: S, workspace_id: S, agent_id: Opt(S), thread_id: Opt(S), source_message_id: Opt(S),
  intent: Opt(S), urgency: Opt(N), injection_score: Opt(N), sender_reputation: Opt(N), entities: Opt(Type.Record(S, Type.Unknown())),
  injection_categories: Opt(Arr(S)), classifier_model: Opt(S), quarantined: Opt(B), test_mode: B,
  data: Type.Record(S, Type.Unknown()), created_at: Ts,
});
/** Inbound events: `data.to` agrees with the received message's `to` (a string). */
export const InboundEventData = Type.Object({ from: S, to: S, subject: S, body_text_excerpt: S, thread_id: S, source_message_id: Opt(S) });
export const EventRedelivered = Type.Object({ event_id: S, webhook_endpoint_ids: Arr(S), scheduled_at: Ts });

export const WebhookEndpoint = Type.Object({
  id: S, url: S, event_types: Arr(S), description: OrNull(S), active: B, secret_rotated_at: OrNull(Ts),
  previous_secret_expires_at: OrNull(Ts), created_at: Ts,
});
export const WebhookCreated = Type.Intersect([WebhookEndpoint, Type.Object({ signing_secret: Type.String({ pattern: '^whsec_' }) })]);
export const WebhookTest = Type.Object({ ok: B, http_status: Opt(N), error: Opt(S) });
export const WebhookDelivery = Type.Object({
  id: S, webhook_endpoint_id: S, event_id: S, attempt_number: N,
  status: Type.Union(['pending', 'succeeded', 'failed', 'dlq'].map((x) => Type.Literal(x))),
  http_status: Opt(N), response_body_excerpt: Opt(S), next_retry_at: Opt(Ts), delivered_at: Opt(Ts), created_at: Ts,
});
export const DeliveryReplayed = Type.Object({ delivery_id: S, event_id: S, scheduled: Arr(Type.Unknown()), scheduled_at: Ts });

export const SuppressionLookup = Type.Object({
  suppressed: B,
  type: Opt(Type.Union(['hard_bounce', 'complaint', 'unsubscribe'].map((x) => Type.Literal(x)))),
  scope: Opt(S),
  since: Opt(Ts),
  allowed: Opt(Type.Object({ id: S, attestation: S, created_at: Ts })),
});
export const AllowEntry = Type.Object({ id: S, address: S, attestation: S, created_at: Ts });
export const AllowRevoked = Type.Object({ id: S, revoked_at: Ts });

export const Reputation = Type.Object({
  agent_id: Opt(S), workspace_id: S, reputation: Type.Number({ minimum: 0, maximum: 1 }), send_count_30d: N,
  bounce_count_30d: N, complaint_count_30d: N, reply_count_30d: N,
});
export const Usage = Type.Object({
  workspace_id: S, tier: S, tier_status: S, period_start: Ts, period_end: Ts,
  usage: Type.Object({ sends: N, parses: N, webhook_deliveries: N, sends_cost_usd: N, parses_cost_usd: N }),
  caps: Type.Object({ monthly_sends: N, monthly_parses: N, agents: N, hourly: N, daily: N }),
});
export const Portal = Type.Object({ url: S, mock: B });
export const LogEntry = Type.Object({ id: S, category: S, action: S, target_resource_id: Opt(S), metadata: Type.Record(S, Type.Unknown()), created_at: Ts });

export const Pages = {
  SentMessage: Page(SentMessage), ReceivedMessage: Page(ReceivedMessage), Agent: Page(Agent), ApiKey: Page(ApiKey),
  Thread: Page(Thread), Draft: Page(Draft), Event: Page(Event), WebhookEndpoint: Page(WebhookEndpoint),
  WebhookDelivery: Page(WebhookDelivery), AllowEntry: Page(AllowEntry), LogEntry: Page(LogEntry),
};
