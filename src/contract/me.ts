import { Type, type Static } from 'typebox';
import { Nullable, Timestamp } from './common.js';
import { route } from './route.js';
import { Agent } from './agents.js';
import { ApiKey } from './api-keys.js';

export const TIERS = ['free', 'pro', 'scale'] as const;
export type Tier = (typeof TIERS)[number];

export const Workspace = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  display_name: Type.String(),
  tier: Type.Enum(TIERS),
  tier_status: Type.String(),
});
export type Workspace = Static<typeof Workspace>;

export const Me = Type.Object({
  api_key: Type.Pick(ApiKey, ['id', 'prefix', 'name', 'mode', 'scopes', 'agent_id', 'last_used_at', 'created_at']),
  workspace: Workspace,
  agent: Nullable(Agent),
});
export type Me = Static<typeof Me>;

export const Health = Type.Object({ status: Type.Literal('ok'), version: Type.String(), time: Timestamp });

export const meRoutes = {
  'me.get': route({
    method: 'GET', path: '/me', scope: null, summary: 'The calling key, its workspace and its agent',
    status: 200, response: Me,
  }),
  'health.get': route({
    method: 'GET', path: '/health', scope: 'public', summary: 'Liveness (no key needed)',
    status: 200, response: Health,
  }),
  'openapi.get': route({
    method: 'GET', path: '/openapi.json', scope: 'public', summary: 'This OpenAPI document',
    status: 200, response: null, produces: 'application/json',
  }),
};
