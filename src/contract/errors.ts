import { Type, type Static } from 'typebox';

/** The spec's 61 error codes (Errors → Full list of code values). Stable. */
export const ERROR_CODES = [
  'invalid_field', 'missing_field', 'missing_param', 'invalid_param_value', 'method_not_allowed',
  'invalid_idempotency_key', 'duplicate_resource', 'slug_invalid', 'slug_reserved', 'slug_taken',
  'agent_name_conflict', 'body_too_large', 'missing_authorization', 'missing_api_key', 'invalid_api_key',
  'expired_api_key', 'revoked_api_key', 'invalid_access_token', 'email_not_verified', 'insufficient_scope',
  'connected_app_not_allowed', 'sso_required', 'workspace_mismatch', 'agent_not_owned', 'rate_limit_exceeded',
  'daily_limit_exceeded', 'hourly_limit_exceeded', 'monthly_limit_exceeded', 'agent_not_found', 'agent_paused',
  'agent_archived', 'resource_not_found', 'recipient_suppressed', 'recipient_not_allowed', 'domain_not_verified',
  'payment_required', 'payment_method_failed', 'subscription_canceled', 'billing_state_inconsistent',
  'free_tier_exceeded', 'plan_limit_exceeded', 'cold_email_prohibited', 'agent_suspended',
  'new_workspace_fanout_exceeded', 'resource_cap_exceeded', 'workspace_cap_exceeded', 'feature_not_enabled',
  'test_mode_required', 'live_mode_required', 'unknown_test_address', 'workspace_not_approved',
  'spam_pattern_detected', 'classifier_rejected', 'high_injection_score', 'complaint_threshold_exceeded',
  'bounce_threshold_exceeded', 'internal_error', 'internal_server_error', 'upstream_error',
  'upstream_unavailable', 'service_unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Error types and the status each normally carries (spec: Type to status). */
export const ERROR_TYPES = {
  invalid_request_error: 400,
  authentication_error: 401,
  payment_error: 402,
  permission_error: 403,
  resource_error: 404,
  abuse_error: 422,
  rate_limit_error: 429,
  api_error: 500,
} as const;
export type ErrorType = keyof typeof ERROR_TYPES;

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      type: Type.Enum(Object.keys(ERROR_TYPES) as ErrorType[]),
      code: Type.Enum(ERROR_CODES),
      message: Type.String(),
      param: Type.Union([Type.String(), Type.Null()]),
      request_id: Type.String({ pattern: '^req_' }),
      upgrade_url: Type.Optional(Type.String()),
      resets_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      retry_after_seconds: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    }),
  },
  { $id: 'ErrorEnvelope' },
);
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

export interface ApiErrorExtra {
  param?: string | null;
  upgrade_url?: string;
  resets_at?: string | null;
  retry_after_seconds?: number | null;
  /** Extra response headers (Retry-After on a short 429 or on 503). */
  headers?: Record<string, string>;
}

/** The one error class every layer throws; the HTTP edge turns it into the envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: ErrorCode,
    message: string,
    readonly extra: ApiErrorExtra = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get param(): string | null {
    return this.extra.param ?? null;
  }

  toEnvelope(requestId: string): ErrorEnvelope {
    const { headers: _h, ...rest } = this.extra;
    return {
      error: {
        type: this.type,
        code: this.code,
        message: this.message,
        param: this.extra.param ?? null,
        request_id: requestId,
        ...(rest.upgrade_url !== undefined ? { upgrade_url: rest.upgrade_url } : {}),
        ...(this.status === 429
          ? { resets_at: rest.resets_at ?? null, retry_after_seconds: rest.retry_after_seconds ?? null }
          : {}),
      },
    };
  }

  /** Rebuild from an envelope (the client does this for every non-2xx answer). */
  static fromEnvelope(status: number, env: ErrorEnvelope): ApiError {
    const e = env.error;
    return new ApiError(status, e.type as ErrorType, e.code as ErrorCode, e.message, {
      param: e.param,
      upgrade_url: e.upgrade_url,
      resets_at: e.resets_at,
      retry_after_seconds: e.retry_after_seconds,
    });
  }
}

export function isErrorCode(code: string): code is ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code);
}

/** `/to/3/address` → `to[3].address`: the field as the client wrote it. */
export function pointerToParam(pointer: string): string {
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(seg)) out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}
