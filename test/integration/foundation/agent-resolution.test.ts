import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { resolveAgent } from '../../../src/services/agents.js';
import { insertAgent, type AgentRow } from '../../../src/db/repos/agents.js';
import type { AuthContext } from '../../../src/services/context.js';
import { ApiError } from '../../../src/contract/errors.js';
import { newId } from '../../../src/shared/ids.js';
import { isoAt } from '../../../src/shared/clock.js';

// Spec: Errors → agent_name_conflict. Two live agents can share a name only on different domains,
// which the API cannot create yet, so the rows are inserted directly.
let t: TestApp;
let older: AgentRow;
let newer: AgentRow;
let archivedTwin: AgentRow;
let liveTwin: AgentRow;
let lonelyArchived1: AgentRow;
let lonelyArchived2: AgentRow;

async function addAgent(name: string, domain: string, status: AgentRow['status'] = 'active'): Promise<AgentRow> {
  t.clock.advance(1000);
  const at = isoAt(t.clock.now());
  const row: AgentRow = {
    id: newId('agt', t.clock), workspace_id: t.boot.workspace.id, name, display_name: null, email: `${name}@${domain}`, domain,
    status, daily_send_limit: null, hourly_send_limit: null, classify_inbound: true, allowlist_domains: [], blocklist_domains: [],
    created_at: at, updated_at: at, archived_at: status === 'archived' ? at : null,
  };
  await insertAgent(t.ctx.db, row);
  return row;
}

const auth = (over: Partial<AuthContext> = {}): AuthContext => ({
  keyId: t.boot.keys.live.id, workspaceId: t.boot.workspace.id, mode: 'live', scopes: ['send', 'read', 'manage', 'draft'],
  agentId: null, expiresAt: null, ...over,
});

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected a refusal');
}

beforeAll(async () => {
  t = await createTestApp();
  older = await addAgent('shared', 'one.example');
  newer = await addAgent('shared', 'two.example');
  archivedTwin = await addAgent('twin', 'one.example', 'archived');
  liveTwin = await addAgent('twin', 'two.example');
  lonelyArchived1 = await addAgent('ghost', 'one.example', 'archived');
  lonelyArchived2 = await addAgent('ghost', 'two.example', 'archived');
});
afterAll(async () => {
  await t.close();
});

describe('resolveAgent: two live agents with one name', () => {
  it('routes and filters answer 409 agent_name_conflict, naming the param', async () => {
    const r = await refusal(resolveAgent(t.ctx, auth(), 'shared', 'route', null));
    expect(r.status).toBe(409);
    expect(r.code).toBe('agent_name_conflict');
    const f = await refusal(resolveAgent(t.ctx, auth(), 'Shared', 'filter', 'agent_id'));
    expect(f.code).toBe('agent_name_conflict');
    expect(f.param).toBe('agent_id');
  });

  it('a send picks the oldest', async () => {
    expect((await resolveAgent(t.ctx, auth(), 'shared', 'send')).id).toBe(older.id);
  });

  it('ids and full addresses are never ambiguous', async () => {
    expect((await resolveAgent(t.ctx, auth(), newer.id, 'route')).id).toBe(newer.id);
    expect((await resolveAgent(t.ctx, auth(), 'shared@two.example', 'route')).id).toBe(newer.id);
    expect((await resolveAgent(t.ctx, auth(), 'SHARED@one.example', 'filter')).id).toBe(older.id);
  });

  it('over HTTP: GET/PATCH/DELETE /v1/agents/{name} answer 409; by id they work', async () => {
    for (const [m, body] of [['GET', undefined], ['PATCH', { display_name: 'x' }], ['DELETE', undefined]] as const) {
      const r = await t.req(m, '/v1/agents/shared', { body });
      expect(r.status, m).toBe(409);
      expect(r.body.error.code).toBe('agent_name_conflict');
    }
    expect((await t.req('GET', `/v1/agents/${older.id}`)).body.email).toBe('shared@one.example');
    const key = await t.req('POST', '/v1/api-keys', { body: { name: 'x', scopes: [], mode: 'live', agent_id: 'shared' } });
    expect(key.status).toBe(409);
    expect(key.body.error.param).toBe('agent_id');
  });
});

describe('resolveAgent: the calling key’s own agent first; bound keys never get the 409', () => {
  it('a key bound to one of the twins gets its own, for every purpose', async () => {
    for (const purpose of ['route', 'filter', 'send'] as const) {
      expect((await resolveAgent(t.ctx, auth({ agentId: newer.id }), 'shared', purpose)).id).toBe(newer.id);
    }
    const bound = await t.makeKey({ scopes: ['read'], agent_id: newer.id });
    const r = await t.req('GET', '/v1/agents/shared', { key: bound });
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(newer.id);
  });

  it('a key bound to another agent: routes 404, filters 403, never 409', async () => {
    const other = auth({ agentId: t.boot.agent.id });
    const route = await refusal(resolveAgent(t.ctx, other, 'shared', 'route', null));
    expect(route.status).toBe(404);
    expect(route.code).toBe('agent_not_found');
    const filter = await refusal(resolveAgent(t.ctx, other, 'shared', 'filter', 'agent_id'));
    expect(filter.status).toBe(403);
    expect(filter.code).toBe('insufficient_scope');
    const send = await refusal(resolveAgent(t.ctx, other, 'shared', 'send'));
    expect(send.status).toBe(404);
    const bound = await t.makeKey({ scopes: ['read', 'manage'], agent_id: t.boot.agent.id });
    for (const [m, body] of [['GET', undefined], ['PATCH', { display_name: 'x' }], ['DELETE', undefined]] as const) {
      const r = await t.req(m, '/v1/agents/shared', { key: bound, body });
      expect(r.status, m).toBe(404);
    }
  });

  it('a bound key whose own agent is archived still resolves to it over a live namesake', async () => {
    expect((await resolveAgent(t.ctx, auth({ agentId: archivedTwin.id }), 'twin', 'route')).id).toBe(archivedTwin.id);
  });
});

describe('resolveAgent: live over archived', () => {
  it('a live agent wins over an archived one with the same name, without a conflict', async () => {
    for (const purpose of ['route', 'filter', 'send'] as const) {
      expect((await resolveAgent(t.ctx, auth(), 'twin', purpose)).id).toBe(liveTwin.id);
    }
    expect((await t.req('GET', '/v1/agents/twin')).body.id).toBe(liveTwin.id);
  });

  it('only archived namesakes: the name still reads the newest of them (archived)', async () => {
    const a = await resolveAgent(t.ctx, auth(), 'ghost', 'route');
    expect(a.id).toBe(lonelyArchived2.id);
    expect(a.status).toBe('archived');
    expect(lonelyArchived1.id < lonelyArchived2.id).toBe(true);
  });

  it('an unknown name is 404 agent_not_found with the param given', async () => {
    const e = await refusal(resolveAgent(t.ctx, auth(), 'nobody', 'filter', 'agent_id'));
    expect(e.status).toBe(404);
    expect(e.code).toBe('agent_not_found');
    expect(e.param).toBe('agent_id');
  });

  it('agents of another workspace are invisible', async () => {
    const e = await refusal(resolveAgent(t.ctx, auth({ workspaceId: 'wsk_other' }), older.id, 'route'));
    expect(e.code).toBe('agent_not_found');
    const byMail = await refusal(resolveAgent(t.ctx, auth({ workspaceId: 'wsk_other' }), 'shared@one.example', 'route'));
    expect(byMail.code).toBe('agent_not_found');
  });
});
