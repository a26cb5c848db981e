import { describe, expect, it } from 'vitest';
import { pushRequest, requestLogRows, REQUEST_CATEGORY, REQUEST_LOG_VALUES, type RequestLogValues } from '../../../src/db/request-log-rows.js';
import { isoAt } from '../../../src/shared/clock.js';

// requestLogRows reads the flat batch in place (issue #13: the writer thread builds a row per
// authenticated request). The rule as it was written before (slice and destructure per row) is
// kept here: both must give the same rows for any batch.
function before(batch: readonly unknown[]) {
  const rows = [];
  for (let i = 0; i + REQUEST_LOG_VALUES <= batch.length; i += REQUEST_LOG_VALUES) {
    const [id, at, workspaceId, agentId, keyId, mode, method, url, route, status, requestId, clientAddress, userAgent, durationMs] =
      batch.slice(i, i + REQUEST_LOG_VALUES) as [string, number, string, string | null, string, string, string, string, string | null, number, string, string | null, string | null, number];
    const path = url.split('?')[0];
    rows.push({
      id, workspace_id: workspaceId, category: REQUEST_CATEGORY, action: `${method} ${route ?? path}`,
      target_resource_id: null, agent_id: agentId, key_id: keyId,
      metadata: { method, path, status, request_id: requestId, key_id: keyId, mode, client_address: clientAddress, user_agent: userAgent, duration_ms: Math.round(durationMs) },
      created_at: isoAt(at),
    });
  }
  return rows;
}

describe('requestLogRows', () => {
  it('gives the rows the slice-per-row rule gave, value for value and key order included', () => {
    const batch: unknown[] = [];
    const urls = ['/v1/me', '/v1/messages?agent=a%40b.c&limit=5', '/v1/agents/agt_1', '/v1/x?', '?q=1'];
    for (let i = 0; i < 60; i++) {
      const v: RequestLogValues = {
        id: `log_${i}`, at: 1_700_000_000_000 + i * 997.5, workspaceId: `wsk_${i % 3}`, agentId: i % 4 ? null : `agt_${i}`,
        keyId: `key_${i % 5}`, mode: i % 2 ? 'live' : 'test', method: ['GET', 'POST', 'DELETE'][i % 3], url: urls[i % urls.length],
        route: i % 3 ? null : '/v1/agents/:id', status: [200, 202, 404, 500][i % 4], requestId: `req_${i}`,
        clientAddress: i % 6 ? '127.0.0.1' : null, userAgent: i % 7 ? `agent/${i}` : null, durationMs: i * 0.37,
      };
      pushRequest(batch, v);
    }
    batch.push('a stray value'); // an incomplete last row is left out by both
    const got = requestLogRows(batch);
    expect(got.length).toBe(60);
    expect(JSON.stringify(got)).toBe(JSON.stringify(before(batch)));
    expect(got[1]).toMatchObject({ action: 'POST /v1/messages', metadata: { path: '/v1/messages', duration_ms: 0 } });
  });
});
