import { describe, expect, it } from 'vitest';
import { Errors } from '../../../src/shared/errors.js';
import { ApiError, ERROR_CODES, ERROR_TYPES } from '../../../src/contract/errors.js';

// Spec: Errors → Type to status, Code groups, Retry-After rule.
const SPECIAL_400_TYPE_STATUS: Record<string, number> = {
  duplicate_resource: 409, agent_name_conflict: 409, body_too_large: 413, unknown_test_address: 422,
  method_not_allowed: 405, agent_archived: 409,
};

function samples(): [string, ApiError][] {
  const out: [string, ApiError][] = [];
  for (const [name, make] of Object.entries(Errors)) {
    const fn = make as (...a: unknown[]) => unknown;
    const args: unknown[] = Array.from({ length: Math.max(fn.length, 3) }, (_, i) => (i === 2 && name === 'limit' ? { resetsAt: null, retryAfterSeconds: null } : name === 'limit' && i === 0 ? 'hourly_limit_exceeded' : `arg${i}`));
    if (name === 'methodNotAllowed' || name === 'routeNotFound') args[2] = ['GET /v1/x'];
    if (name === 'bodyTooLarge' || name === 'upstreamUnavailable') args[0] = 100;
    if (name === 'agentArchived') args.length = 1;
    if (name === 'recipientNotAllowed') args.length = 3;
    const e = fn(...args);
    if (e instanceof ApiError) out.push([name, e]);
  }
  return out;
}

describe('the error catalogue', () => {
  it('every entry uses a spec code and the spec type-to-status table', () => {
    const all = samples();
    expect(all.length).toBeGreaterThan(30);
    for (const [name, e] of all) {
      expect(ERROR_CODES, name).toContain(e.code);
      const typeStatus = ERROR_TYPES[e.type];
      if (e.type === 'api_error') expect([500, 502, 503], name).toContain(e.status);
      else if (e.type === 'invalid_request_error' && e.status !== 400) expect(SPECIAL_400_TYPE_STATUS[e.code], name).toBe(e.status);
      else expect(e.status, name).toBe(typeStatus);
      const env = e.toEnvelope('req_x');
      expect(env.error.request_id).toBe('req_x');
      expect(env.error.param === null || typeof env.error.param === 'string').toBe(true);
    }
  });

  it('402s carry upgrade_url; 429s carry resets_at and retry_after_seconds', () => {
    expect(Errors.planLimitExceeded('x').toEnvelope('req_1').error.upgrade_url).toMatch(/^https?:\/\//);
    const e = Errors.limit('daily_limit_exceeded', 'x', { resetsAt: '2026-01-01T00:00:00.000Z', retryAfterSeconds: 3600 }).toEnvelope('req_1');
    expect(e.error).toMatchObject({ resets_at: '2026-01-01T00:00:00.000Z', retry_after_seconds: 3600 });
    const nulls = Errors.limit('hourly_limit_exceeded', 'x', { resetsAt: null, retryAfterSeconds: null }).toEnvelope('req_1');
    expect(nulls.error).toMatchObject({ resets_at: null, retry_after_seconds: null });
    expect(Errors.notFound('x', 'y').toEnvelope('req_1').error).not.toHaveProperty('resets_at');
  });

  it('Retry-After only when the wait is 60 s or less, and on 503 upstream_unavailable', () => {
    expect(Errors.limit('rate_limit_exceeded', 'x', { resetsAt: 'a', retryAfterSeconds: 60 }).extra.headers).toEqual({ 'retry-after': '60' });
    expect(Errors.limit('rate_limit_exceeded', 'x', { resetsAt: 'a', retryAfterSeconds: 61 }).extra.headers).toEqual({});
    expect(Errors.limit('rate_limit_exceeded', 'x', { resetsAt: null, retryAfterSeconds: null }).extra.headers).toEqual({});
    expect(Errors.upstreamUnavailable('x', 30).extra.headers).toEqual({ 'retry-after': '30' });
  });

  it('envelopes round-trip through ApiError.fromEnvelope (the client does this)', () => {
    const e = Errors.agentNameConflict('sam', 'agent_id');
    const back = ApiError.fromEnvelope(409, e.toEnvelope('req_1'));
    expect([back.status, back.type, back.code, back.message, back.param]).toEqual([409, e.type, e.code, e.message, 'agent_id']);
  });

  it('internal errors say nothing about the cause', () => {
    expect(Errors.internal().message).not.toMatch(/error:|stack|sqlite/i);
  });
});
