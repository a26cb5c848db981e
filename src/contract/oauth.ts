import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, ListQuerySchema, Page, IdParams, SCOPES } from './common.js';
import { route } from './route.js';

/**
 * Connected apps (spec: Authentication → Connected apps; Endpoints → Connected apps). The spec
 * leaves the shapes "not shown"; these follow the API's own conventions (api_key, revoke → {id, revoked_at}).
 */

/** Approved access (the sign-in scope) → token scopes (spec table). `full_access` is the default. */
export const GRANT_ACCESS = ['read', 'send', 'full_access'] as const;
export type GrantAccess = (typeof GRANT_ACCESS)[number];

/** Access tokens last one hour (spec: Connected apps). */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** An app used at least once in 60 days stays connected (spec: Connected apps). */
export const GRANT_IDLE_DAYS = 60;

/** `moa_` + 43 base64url characters (256 random bits); the refresh token is `mor_` + the same. */
export const ACCESS_TOKEN_PATTERN = '^moa_[A-Za-z0-9_-]{43}$';
export const REFRESH_TOKEN_PATTERN = '^mor_[A-Za-z0-9_-]{43}$';

export const OauthGrant = Type.Object({
  id: Type.String(),
  object: Type.Literal('oauth_grant'),
  app_name: Type.String(),
  access: Type.Enum(GRANT_ACCESS),
  scopes: Type.Array(Type.Enum(SCOPES)),
  /** `active`; `revoked` (DELETE); `expired` (unused for 60 days). */
  status: Type.Enum(['active', 'revoked', 'expired'] as const),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
  /** When it disconnects unless used before then; each use moves it; null once revoked. */
  expires_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
});
export type OauthGrant = Static<typeof OauthGrant>;

export const OauthGrantRevoked = Type.Object({ id: Type.String(), revoked_at: Timestamp });

/**
 * RFC 6749 §6 refresh request. Accepted as JSON or as the form encoding OAuth clients send
 * (the route is public, and public routes parse forms).
 */
export const OauthTokenRequest = Type.Object(
  {
    grant_type: Type.Enum(['refresh_token'] as const),
    refresh_token: Type.String({ pattern: REFRESH_TOKEN_PATTERN, maxLength: 100 }),
  },
  { additionalProperties: false },
);
export type OauthTokenRequest = Static<typeof OauthTokenRequest>;

/** RFC 6749 §5.1: `scope` is space-separated. */
export const OauthToken = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer(),
  refresh_token: Type.String(),
  scope: Type.String(),
});
export type OauthToken = Static<typeof OauthToken>;

/** What approving an app returns once (the CLI prints it): the grant and its first tokens. */
export type OauthGrantConnected = OauthToken & { grant: OauthGrant };

export const oauthRoutes = {
  'oauth_grants.list': route({
    method: 'GET', path: '/oauth/grants', scope: 'manage', summary: 'List connected apps, newest first',
    unboundOnly: 'list connected apps', query: ListQuerySchema, status: 200, response: Page(OauthGrant),
  }),
  'oauth_grants.revoke': route({
    method: 'DELETE', path: '/oauth/grants/:id', scope: 'manage', summary: 'Revoke a connected app (ends its sign-in at once; idempotent)',
    unboundOnly: 'revoke a connected app', params: IdParams, status: 200, response: OauthGrantRevoked,
  }),
  'oauth.token': route({
    method: 'POST', path: '/oauth/token', scope: 'public', summary: 'Renew a connected app\'s access token with its refresh token',
    body: OauthTokenRequest, status: 200, response: OauthToken, bodyLimit: 8 * 1024,
  }),
};
