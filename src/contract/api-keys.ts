import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, ListQuerySchema, Page, IdParams, SCOPES, MODES, NO_CONTROL_CHARS } from './common.js';
import { route } from './route.js';

/** Key format (spec: API key): mk_{mode}_{32 hex}. */
export const API_KEY_PATTERN = /^mk_(live|test)_[0-9a-f]{32}$/;

const ScopeEnum = Type.Enum(SCOPES);
const ModeEnum = Type.Enum(MODES);

export const ApiKey = Type.Object({
  id: Type.String(),
  object: Type.Literal('api_key'),
  prefix: Type.String(),
  name: Type.String(),
  mode: ModeEnum,
  scopes: Type.Array(ScopeEnum),
  agent_id: Nullable(Type.String()),
  last_used_at: Nullable(Timestamp),
  expires_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
  created_at: Timestamp,
});
export type ApiKey = Static<typeof ApiKey>;

export const ApiKeyCreated = Type.Evaluate(Type.Intersect([ApiKey, Type.Object({ key: Type.String() })]));
export type ApiKeyCreated = Static<typeof ApiKeyCreated>;

/**
 * The hosted SDK treats `scopes` and `mode` as optional (compat) and sends `name` alone or `scopes`
 * alone. Documented defaults (docs/api-foundation.md → API keys): `scopes` and `mode` are the
 * maker's own, `name` is "API key". An empty `scopes` array still means "no scope" (spec rule 6).
 */
export const ApiKeyCreate = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: NO_CONTROL_CHARS })),
    scopes: Type.Optional(Type.Array(ScopeEnum, { maxItems: 4, uniqueItems: true })),
    mode: Type.Optional(ModeEnum),
    agent_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
  },
  { additionalProperties: false },
);
export type ApiKeyCreate = Static<typeof ApiKeyCreate>;

export const ApiKeyRevoked = Type.Object({ id: Type.String(), revoked_at: Timestamp });

export const apiKeyRoutes = {
  'api_keys.create': route({
    method: 'POST', path: '/api-keys', scope: 'manage', summary: 'Create an API key (plaintext returned once)',
    body: ApiKeyCreate, status: 201, response: ApiKeyCreated,
  }),
  'api_keys.list': route({
    method: 'GET', path: '/api-keys', scope: 'read', summary: 'List API keys, newest first',
    query: ListQuerySchema, status: 200, response: Page(ApiKey),
  }),
  'api_keys.revoke': route({
    method: 'DELETE', path: '/api-keys/:id', scope: 'manage', summary: 'Revoke an API key (idempotent)',
    unboundOnly: 'revoke a key', params: IdParams, status: 200, response: ApiKeyRevoked,
  }),
};
