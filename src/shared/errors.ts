import { ApiError, type ApiErrorExtra } from '../contract/errors.js';

/**
 * The one catalogue of errors. Services throw from here, never a bare Error,
 * so every refusal carries the spec's type, status and code
 * (spec: Errors → Type to status, Code groups).
 */
const bad = (code: ConstructorParameters<typeof ApiError>[2], message: string, param?: string | null) =>
  new ApiError(400, 'invalid_request_error', code, message, { param: param ?? null });

export interface RetryInfo {
  resetsAt: string | null;
  retryAfterSeconds: number | null;
}

function retryExtra(r: RetryInfo, param?: string): ApiErrorExtra {
  const headers: Record<string, string> = {};
  // Spec: Retry-After only when the wait is 60 seconds or less.
  if (r.retryAfterSeconds !== null && r.retryAfterSeconds <= 60) headers['retry-after'] = String(r.retryAfterSeconds);
  return { resets_at: r.resetsAt, retry_after_seconds: r.retryAfterSeconds, headers, param: param ?? null };
}

const UPGRADE_URL = 'https://mailagent.localhost/settings/billing';

/** How an unparsable request body's error begins (the MCP route answers it as JSON-RPC's Parse error instead). */
export const INVALID_JSON = 'The request body is not valid JSON:';

export const Errors = {
  // ---- validation (400)
  missingField: (param: string, message?: string) =>
    bad('missing_field', message ?? `Missing required field \`${param}\`.`, param),
  invalidField: (param: string, message: string) => bad('invalid_field', message, param),
  invalidParam: (param: string, message: string) => bad('invalid_param_value', message, param),
  missingParam: (param: string, message?: string) =>
    bad('missing_param', message ?? `Missing required query parameter \`${param}\`.`, param),
  invalidJson: (message: string) => bad('invalid_field', `${INVALID_JSON} ${message}`, null),
  invalidIdempotencyKey: (message: string) => bad('invalid_idempotency_key', message, 'Idempotency-Key'),
  featureDisabled: (message: string) => bad('feature_not_enabled', message),
  slugInvalid: (message: string) => bad('slug_invalid', message, 'slug'),
  slugReserved: (slug: string) => bad('slug_reserved', `"${slug}" is reserved; choose another slug.`, 'slug'),
  bodyTooLarge: (limit: number, message?: string) =>
    new ApiError(413, 'invalid_request_error', 'body_too_large', message ?? `The request body exceeds the limit of ${limit} bytes.`),
  methodNotAllowed: (method: string, path: string, allowed: string[]) =>
    new ApiError(405, 'invalid_request_error', 'method_not_allowed',
      `${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}.`),

  // ---- conflicts (409)
  duplicate: (message: string) => new ApiError(409, 'invalid_request_error', 'duplicate_resource', message),
  agentNameConflict: (name: string, param = 'agent') =>
    new ApiError(409, 'invalid_request_error', 'agent_name_conflict',
      `More than one live agent is named "${name}"; refer to the agent by its id (agt_...).`, { param }),
  agentAddressTaken: (email: string) =>
    new ApiError(409, 'invalid_request_error', 'agent_name_conflict',
      `The address ${email} is already taken; an agent's address is never reused, even after archiving. Choose another name.`,
      { param: 'name' }),
  agentArchived: (id: string, status = 409) =>
    new ApiError(status, status === 409 ? 'invalid_request_error' : 'abuse_error', 'agent_archived',
      `Agent ${id} is archived; archiving cannot be undone.`),

  // ---- authentication (401)
  missingAuthorization: () => new ApiError(401, 'authentication_error', 'missing_authorization',
    'No API key given. Send the header `Authorization: Bearer <API_KEY>`.'),
  /** missing_authorization with its own sentence (a route that wants another credential than an API key). */
  missingAuthorizationFor: (message: string) => new ApiError(401, 'authentication_error', 'missing_authorization', message),
  invalidApiKey: (message = 'The API key is not valid.') =>
    new ApiError(401, 'authentication_error', 'invalid_api_key', message),
  revokedApiKey: (at: string) => new ApiError(401, 'authentication_error', 'revoked_api_key',
    `This API key was revoked at ${at}; create a new key.`),
  expiredApiKey: (at: string) => new ApiError(401, 'authentication_error', 'expired_api_key',
    `This API key expired at ${at}; create a new key.`),
  invalidAccessToken: () => new ApiError(401, 'authentication_error', 'invalid_access_token',
    'The access token is not valid or has expired.'),

  // ---- permission (403)
  insufficientScope: (message: string, param: string | null = null) => new ApiError(403, 'permission_error', 'insufficient_scope', message, param ? { param } : undefined),
  liveModeRequired: (what: string) => new ApiError(403, 'permission_error', 'live_mode_required',
    `A test key cannot ${what}; use a live key.`),
  testModeRequired: (what: string) => new ApiError(403, 'permission_error', 'test_mode_required',
    `${what} needs a test key (mk_test_...).`),
  connectedAppNotAllowed: (what: string) => new ApiError(403, 'permission_error', 'connected_app_not_allowed',
    `A connected app cannot ${what}.`),

  // ---- not found (404)
  notFound: (kind: string, id: string) =>
    new ApiError(404, 'resource_error', 'resource_not_found', `No ${kind} with id ${id} exists in this workspace.`),
  routeNotFound: (method: string, path: string, nearby: string[] = []) =>
    new ApiError(404, 'resource_error', 'resource_not_found',
      `No route ${method} ${path}.${nearby.length ? ` Did you mean ${nearby.join(' or ')}?` : ''} See GET /v1/openapi.json.`),
  agentNotFound: (ref: string, param: string | null = 'agent', hint = '') =>
    new ApiError(404, 'resource_error', 'agent_not_found', `No agent "${ref}" exists in this workspace.${hint}`, { param }),
  /** An agent-bound key asking for another agent: the same 404, worded so it is true whether or not that agent exists. */
  agentNotVisible: (ref: string, param: string | null, boundTo: string) =>
    new ApiError(404, 'resource_error', 'agent_not_found', `No agent "${ref}" is visible to this key (it is bound to agent ${boundTo}).`, { param }),

  // ---- abuse (422)
  agentPaused: (name: string) => new ApiError(422, 'abuse_error', 'agent_paused',
    `Agent ${name} is paused; resume it with PATCH /v1/agents/{id} {"status":"active"}.`),
  recipientSuppressed: (address: string, param: string) => new ApiError(422, 'abuse_error', 'recipient_suppressed',
    `${address} is suppressed (bounce, complaint or unsubscribe); see GET /v1/suppression?address=${address}.`, { param }),
  recipientNotAllowed: (address: string, param: string, why: string) =>
    new ApiError(422, 'abuse_error', 'recipient_not_allowed', `${address} is not allowed: ${why}.`, { param }),
  unknownTestAddress: (address: string, testAddress: string, param: string) =>
    new ApiError(422, 'invalid_request_error', 'unknown_test_address',
      `${address} is on the test domain but is not its test address; use ${testAddress}.`, { param }),
  testAddressNeedsTestKey: (address: string, param: string) =>
    new ApiError(422, 'invalid_request_error', 'unknown_test_address',
      `${address} is the test address; it answers only test-key sends (mk_test_...). Live keys cannot send to the test domain.`, { param }),
  coldEmailProhibited: (message: string) => new ApiError(422, 'abuse_error', 'cold_email_prohibited', message),
  domainNotVerified: (domain: string) => new ApiError(422, 'abuse_error', 'domain_not_verified',
    `The domain ${domain} is not verified yet; publish its DNS records and call POST /v1/domains/{id}/verify.`),

  // ---- payment (402)
  planLimitExceeded: (message: string) =>
    new ApiError(402, 'payment_error', 'plan_limit_exceeded', message, { upgrade_url: UPGRADE_URL }),
  paymentRequired: (message: string) =>
    new ApiError(402, 'payment_error', 'payment_required', message, { upgrade_url: UPGRADE_URL }),

  // ---- limits (429)
  limit: (
    code: 'hourly_limit_exceeded' | 'daily_limit_exceeded' | 'monthly_limit_exceeded' | 'free_tier_exceeded'
      | 'rate_limit_exceeded' | 'new_workspace_fanout_exceeded',
    message: string,
    retry: RetryInfo,
  ) => new ApiError(429, 'rate_limit_error', code, message, retryExtra(retry)),

  // ---- upstream (5xx)
  upstreamError: (message: string) => new ApiError(502, 'api_error', 'upstream_error', message),
  upstreamUnavailable: (message: string, retryAfterSeconds = 30) =>
    new ApiError(503, 'api_error', 'upstream_unavailable', message,
      { headers: { 'retry-after': String(retryAfterSeconds) } }),
  serviceUnavailable: (message: string, retryAfterSeconds?: number) => new ApiError(503, 'api_error', 'service_unavailable', message,
    retryAfterSeconds ? { headers: { 'retry-after': String(retryAfterSeconds) } } : {}),
  internal: () => new ApiError(500, 'api_error', 'internal_error',
    'Something went wrong on our side. The request id identifies it in the daemon log.'),
};
