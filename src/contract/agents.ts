import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, ListQuery, Page, IdParams, NO_CONTROL_CHARS, Opt } from './common.js';
import { route } from './route.js';

/** Agent names: the lower-case local part of the address (see README "Agent names"). */
export const AGENT_NAME_PATTERN = '^[a-z0-9](?:[a-z0-9_-]|\\.(?!\\.)){0,62}[a-z0-9]$|^[a-z0-9]$';
export const AGENT_STATUSES = ['active', 'paused', 'archived'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

const Domain = Type.String({ minLength: 1, maxLength: 253 });
const DomainList = Type.Array(Domain, { maxItems: 1000 });
const SendLimit = Type.Integer({ minimum: 0, maximum: 10_000_000 });

export const Agent = Type.Object({
  id: Type.String(),
  object: Type.Literal('agent'),
  name: Type.String(),
  display_name: Opt(Type.String()),
  email: Type.String(),
  domain: Type.String(),
  workspace_id: Type.String(),
  status: Type.Enum(AGENT_STATUSES),
  daily_send_limit: Opt(Type.Integer()),
  hourly_send_limit: Opt(Type.Integer()),
  classify_inbound: Type.Boolean(),
  allowlist_domains: Type.Array(Type.String()),
  blocklist_domains: Type.Array(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
  archived_at: Opt(Timestamp),
});
export type Agent = Static<typeof Agent>;

export const AgentCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    display_name: Type.Optional(Nullable(Type.String({ maxLength: 200, pattern: NO_CONTROL_CHARS }))),
    daily_send_limit: Type.Optional(Nullable(SendLimit)),
    hourly_send_limit: Type.Optional(Nullable(SendLimit)),
    classify_inbound: Type.Optional(Type.Boolean()),
    allowlist_domains: Type.Optional(DomainList),
    blocklist_domains: Type.Optional(DomainList),
    domain: Type.Optional(Domain),
  },
  { additionalProperties: false },
);
export type AgentCreate = Static<typeof AgentCreate>;

export const AgentUpdate = Type.Object(
  {
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('paused')])),
    display_name: Type.Optional(Nullable(Type.String({ maxLength: 200, pattern: NO_CONTROL_CHARS }))),
    daily_send_limit: Type.Optional(Nullable(SendLimit)),
    hourly_send_limit: Type.Optional(Nullable(SendLimit)),
    classify_inbound: Type.Optional(Type.Boolean()),
    allowlist_domains: Type.Optional(DomainList),
    blocklist_domains: Type.Optional(DomainList),
  },
  { additionalProperties: false },
);
export type AgentUpdate = Static<typeof AgentUpdate>;

export const AgentListQuery = Type.Object(
  {
    ...ListQuery,
    status: Type.Optional(
      Type.Enum(['live', 'all', 'active', 'paused', 'archived'] as const, { default: 'live' }),
    ),
  },
  { additionalProperties: false },
);
export type AgentListQuery = Static<typeof AgentListQuery>;

export const AgentArchived = Type.Object({
  id: Type.String(),
  status: Type.Literal('archived'),
  archived_at: Timestamp,
});

export const agentRoutes = {
  'agents.create': route({
    method: 'POST', path: '/agents', scope: 'manage', summary: 'Create an agent',
    unboundOnly: 'create an agent', body: AgentCreate, status: 201, response: Agent,
  }),
  'agents.list': route({
    method: 'GET', path: '/agents', scope: 'read', summary: 'List agents',
    query: AgentListQuery, status: 200, response: Page(Agent),
  }),
  'agents.get': route({
    method: 'GET', path: '/agents/:id', scope: 'read', summary: 'Retrieve an agent by id or name',
    params: IdParams, status: 200, response: Agent,
  }),
  'agents.update': route({
    method: 'PATCH', path: '/agents/:id', scope: 'manage', summary: 'Update an agent (pause, resume, limits)',
    params: IdParams, body: AgentUpdate, status: 200, response: Agent,
  }),
  'agents.archive': route({
    method: 'DELETE', path: '/agents/:id', scope: 'manage', summary: 'Archive an agent (cannot be undone)',
    params: IdParams, status: 200, response: AgentArchived,
  }),
};
