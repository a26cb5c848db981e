import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, ListQuery, Page, Opt } from './common.js';
import { route } from './route.js';
import { TIERS } from './me.js';

const AgentRef = Type.String({ minLength: 1, maxLength: 200 });

/** compat.md: Reputation. Real counts over the last 30 days of live mail. */
export const Reputation = Type.Object({
  object: Type.Literal('reputation'),
  workspace_id: Type.String(),
  /** null: the whole workspace. */
  agent_id: Opt(Type.String()),
  reputation: Type.Number({ minimum: 0, maximum: 1 }),
  send_count_30d: Type.Integer(),
  bounce_count_30d: Type.Integer(),
  complaint_count_30d: Type.Integer(),
  reply_count_30d: Type.Integer(),
  bounce_rate: Type.Number(),
  complaint_rate: Type.Number(),
  reply_rate: Type.Number(),
  period_start: Timestamp,
  period_end: Timestamp,
});
export type Reputation = Static<typeof Reputation>;

export const ReputationQuery = Type.Object({ agent_id: Type.Optional(AgentRef) }, { additionalProperties: false });

/** compat.md: Usage. */
export const Usage = Type.Object({
  object: Type.Literal('usage'),
  workspace_id: Type.String(),
  tier: Type.Enum(TIERS),
  tier_status: Type.String(),
  period_start: Timestamp,
  period_end: Timestamp,
  usage: Type.Object({
    sends: Type.Integer(),
    parses: Type.Integer(),
    webhook_deliveries: Type.Integer(),
    sends_cost_usd: Type.Number(),
    parses_cost_usd: Type.Number(),
  }),
  caps: Type.Object({
    monthly_sends: Type.Integer(),
    /** Inbound messages parsed per month (the tier's cap; see shared/tiers.ts). */
    monthly_parses: Type.Integer(),
    agents: Type.Integer(),
    hourly: Type.Integer(),
    daily: Type.Integer(),
  }),
});
export type Usage = Static<typeof Usage>;

export const PortalRequest = Type.Object(
  { return_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2000 })) },
  { additionalProperties: false },
);
export const Portal = Type.Object({ url: Type.String(), mock: Type.Boolean() });

const MetricCounts = Type.Object({
  sent: Type.Integer(),
  received: Type.Integer(),
  replies: Type.Integer(),
  bounces: Type.Integer(),
  complaints: Type.Integer(),
  failed: Type.Integer(),
  scheduled: Type.Integer(),
});

export const Metrics = Type.Object({
  object: Type.Literal('metrics'),
  workspace_id: Type.String(),
  /** The agent counted; null for the whole workspace. */
  agent_id: Opt(Type.String()),
  /** Which mail is counted: `live`, `test`, or `all`. */
  mode: Type.Enum(['live', 'test', 'all'] as const),
  generated_at: Timestamp,
  last_24h: MetricCounts,
  last_30d: MetricCounts,
  totals: Type.Object({
    threads: Type.Integer(),
    drafts: Type.Integer(),
    suppressed_addresses: Type.Integer(),
  }),
});
export type Metrics = Static<typeof Metrics>;

export const MetricsQuery = Type.Object(
  {
    agent_id: Type.Optional(AgentRef),
    /** Default: the calling key's mode. */
    mode: Type.Optional(Type.Enum(['live', 'test', 'all'] as const)),
  },
  { additionalProperties: false },
);
export type MetricsQuery = Static<typeof MetricsQuery>;

/** compat.md: Log entry. */
export const LogEntry = Type.Object({
  id: Type.String(),
  object: Type.Literal('log'),
  category: Type.String(),
  action: Type.String(),
  target_resource_id: Opt(Type.String()),
  agent_id: Opt(Type.String()),
  key_id: Opt(Type.String()),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  created_at: Timestamp,
});
export type LogEntry = Static<typeof LogEntry>;

export const LOG_CATEGORIES = ['api_key', 'agent', 'webhook', 'suppression', 'domain', 'label', 'thread', 'draft', 'workspace', 'oauth_grant', 'request'] as const;

export const LogQuery = Type.Object(
  {
    ...ListQuery,
    category: Type.Optional(Type.Enum(LOG_CATEGORIES)),
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    agent_id: Type.Optional(AgentRef),
  },
  { additionalProperties: false },
);
export type LogQuery = Static<typeof LogQuery>;

export const accountRoutes = {
  'reputation.get': route({
    method: 'GET', path: '/reputation', scope: 'read', summary: 'Sender reputation over 30 days (workspace or one agent)',
    query: ReputationQuery, status: 200, response: Reputation,
  }),
  'billing.usage': route({
    method: 'GET', path: '/billing/usage', scope: 'read', summary: 'Usage this month against the tier\'s caps',
    unboundOnly: 'read workspace usage', status: 200, response: Usage,
  }),
  'billing.portal': route({
    method: 'POST', path: '/billing/portal', scope: 'read', summary: 'Open the billing portal (mock on a self-hosted instance)',
    unboundOnly: 'open the billing portal', body: PortalRequest, status: 200, response: Portal,
  }),
  'metrics.get': route({
    method: 'GET', path: '/metrics', scope: 'read', summary: 'Message counts (an agent-bound key gets its own agent\'s)',
    query: MetricsQuery, status: 200, response: Metrics,
  }),
  'logs.list': route({
    method: 'GET', path: '/logs', scope: 'read', summary: 'The audit log; category=request gives the request log',
    query: LogQuery, status: 200, response: Page(LogEntry),
  }),
};
