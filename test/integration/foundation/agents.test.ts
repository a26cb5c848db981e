import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { inTransaction } from '../../../src/services/context.js';
import { assignThread } from '../../../src/services/threads.js';
import { TIER_CAPS } from '../../../src/shared/tiers.js';

// Spec: Agent (resource), States and transitions → Agent status, Endpoints → Agents,
// Agent-bound keys, live_mode_required.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const code = (r: { body: { error?: { code: string } } }) => r.body.error?.code;
const DOMAIN = 'local.mailagent.localhost';

async function liveAgentCount(): Promise<number> {
  const r = await t.ctx.db.selectFrom('agents').select('id').where('status', '!=', 'archived').execute();
  return r.length;
}

describe('agent names (docs/api-foundation.md "Agent names")', () => {
  it('accepts the documented shapes and lower-cases', async () => {
    const ok: [string, string][] = [
      ['sarah', 'sarah'], ['Carol', 'carol'], ['  bob  ', 'bob'], ['a', 'a'], ['x1', 'x1'], ['first.last', 'first.last'],
      ['under_score', 'under_score'], ['dash-ed', 'dash-ed'], ['a'.repeat(64), 'a'.repeat(64)],
    ];
    for (const [input, name] of ok) {
      const r = await t.req('POST', '/v1/agents', { body: { name: input } });
      expect(r.status, `${input}: ${r.text}`).toBe(201);
      expect(r.body.name).toBe(name);
      expect(r.body.email).toBe(`${name}@${DOMAIN}`);
      await t.req('DELETE', `/v1/agents/${r.body.id}`); // stay under the free plan's agent cap
    }
  });

  it('refuses everything else with 400 invalid_param_value, param name', async () => {
    const bad = [
      '', ' ', '.lead', 'trail.', 'dou..ble', '-lead', 'trail-', '_lead', 'trail_', 'with space', 'plus+tag', 'at@sign',
      'a'.repeat(65), 'ümlaut', 'semi;colon', 'slash/x', 'agt_lookalike', 'quote"s',
    ];
    for (const name of bad) {
      const r = await t.req('POST', '/v1/agents', { body: { name } });
      expect(r.status, name).toBe(400);
      expect(code(r), name).toBe('invalid_param_value');
      expect(r.body.error.param, name).toBe('name');
    }
    const missing = await t.req('POST', '/v1/agents', { body: {} });
    expect(code(missing)).toBe('missing_field');
    expect(missing.body.error.param).toBe('name');
    const wrongType = await t.req('POST', '/v1/agents', { body: { name: 5 } });
    expect(code(wrongType)).toBe('invalid_param_value');
    expect(wrongType.body.error.param).toBe('name');
  });
});

describe('POST /v1/agents', () => {
  it('creates an active agent at <name>@<workspace_slug>.<domain> with settings stored and returned', async () => {
    const body = {
      name: 'support', display_name: 'Support desk', daily_send_limit: 200, hourly_send_limit: 20, classify_inbound: false,
      allowlist_domains: ['Example.com', 'example.com', '@partner.org'], blocklist_domains: ['spam.example'],
    };
    const r = await t.req('POST', '/v1/agents', { body });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      object: 'agent', name: 'support', display_name: 'Support desk', email: `support@${DOMAIN}`, domain: DOMAIN,
      workspace_id: t.boot.workspace.id, status: 'active', daily_send_limit: 200, hourly_send_limit: 20, classify_inbound: false,
      allowlist_domains: ['example.com', 'partner.org'], blocklist_domains: ['spam.example'],
    });
    expect(r.body.id).toMatch(/^agt_/);
    expect(r.body.created_at).toBe(new Date(t.clock.now()).toISOString());
    const got = await t.req('GET', `/v1/agents/${r.body.id}`);
    expect(got.body).toEqual(r.body);
    // Defaults.
    const d = await t.req('POST', '/v1/agents', { body: { name: 'defaults' } });
    expect(d.body).toMatchObject({ classify_inbound: true, allowlist_domains: [], blocklist_domains: [] });
    for (const absent of ['daily_send_limit', 'hourly_send_limit', 'display_name', 'archived_at']) expect(d.body).not.toHaveProperty(absent);
  });

  it('uses the configured domain and the workspace slug', async () => {
    const other = await createTestApp({ domain: 'agents.example.net' });
    try {
      const r = await other.req('POST', '/v1/agents', { body: { name: 'ops' } });
      expect(r.body.email).toBe('ops@local.agents.example.net');
      expect(other.boot.agent.email).toBe('agent@local.agents.example.net');
    } finally {
      await other.close();
    }
  });

  it('concurrent creates of one name: exactly one 201, the rest 409, one row', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => t.req('POST', '/v1/agents', { body: { name: 'racer' } })));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const rows = await t.ctx.db.selectFrom('agents').select('id').where('name', '=', 'racer').execute();
    expect(rows.length).toBe(1);
    await t.req('DELETE', '/v1/agents/racer');
  });

  it('a name already in use is 409 agent_name_conflict, param name', async () => {
    const r = await t.req('POST', '/v1/agents', { body: { name: 'Support' } });
    expect(r.status).toBe(409);
    expect(code(r)).toBe('agent_name_conflict');
    expect(r.body.error.param).toBe('name');
  });

  it('validates allowlist and blocklist entries, naming the item', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ allowlist_domains: ['ok.com', 'ok.org', 'not a domain'] }, 'allowlist_domains[2]'],
      [{ blocklist_domains: ['localhost'] }, 'blocklist_domains[0]'],
      [{ blocklist_domains: ['x.com', 'bad_domain.com'] }, 'blocklist_domains[1]'],
      [{ allowlist_domains: ['-x.com'] }, 'allowlist_domains[0]'],
      [{ allowlist_domains: [''] }, 'allowlist_domains[0]'],
      [{ allowlist_domains: [5] }, 'allowlist_domains[0]'],
      [{ allowlist_domains: 'example.com' }, 'allowlist_domains'],
      [{ allowlist_domains: ['a.com', 'user@b.com'] }, 'allowlist_domains[1]'],
    ];
    for (const [extra, param] of cases) {
      const r = await t.req('POST', '/v1/agents', { body: { name: 'listcheck', ...extra } });
      expect(r.status, JSON.stringify(extra)).toBe(400);
      expect(code(r), JSON.stringify(extra)).toBe('invalid_param_value');
      expect(r.body.error.param, JSON.stringify(extra)).toBe(param);
    }
    // Nothing was half-written.
    expect((await t.req('GET', '/v1/agents/listcheck')).status).toBe(404);
  });

  it('validates limits and flags', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ daily_send_limit: -1 }, 'daily_send_limit'],
      [{ hourly_send_limit: 1.5 }, 'hourly_send_limit'],
      [{ daily_send_limit: '10' }, 'daily_send_limit'],
      [{ classify_inbound: 'yes' }, 'classify_inbound'],
      // Display names end up in From headers: no CR/LF (header injection) or other control characters.
      [{ display_name: 'Support\r\nBcc: victim@example.com' }, 'display_name'],
      [{ display_name: 'x\u0000' }, 'display_name'],
      // C1 (U+009B is a one-byte CSI to some terminals) and bidi overrides/isolates (spoofed names).
      [{ display_name: 'Sup\u009b31mport' }, 'display_name'],
      [{ display_name: 'Support \u202eevil' }, 'display_name'],
      [{ display_name: 'Support \u2067x' }, 'display_name'],
      [{ display_name: 'x'.repeat(201) }, 'display_name'],
    ];
    for (const [extra, param] of cases) {
      const r = await t.req('POST', '/v1/agents', { body: { name: 'limcheck', ...extra } });
      expect(r.status).toBe(400);
      expect(code(r)).toBe('invalid_param_value');
      expect(r.body.error.param).toBe(param);
    }
    // Right-to-left names and their direction marks are fine.
    const was = (await t.req('GET', '/v1/agents/agent')).body.display_name;
    const rtl = await t.req('PATCH', '/v1/agents/agent', { body: { display_name: 'תמיכה\u200f Support' } });
    expect([rtl.status, rtl.body.display_name]).toEqual([200, 'תמיכה\u200f Support']);
    expect((await t.req('PATCH', '/v1/agents/agent', { body: { display_name: was } })).status).toBe(200);
    const unknown = await t.req('POST', '/v1/agents', { body: { name: 'limcheck', colour: 'blue' } });
    expect(code(unknown)).toBe('invalid_field');
    expect(unknown.body.error.param).toBe('colour');
  });

  it('limits above the plan caps are 402 plan_limit_exceeded with upgrade_url', async () => {
    const caps = TIER_CAPS.free;
    for (const body of [{ daily_send_limit: caps.daily + 1 }, { hourly_send_limit: caps.hourly + 1 }]) {
      const r = await t.req('POST', '/v1/agents', { body: { name: 'toobig', ...body } });
      expect(r.status).toBe(402);
      expect(code(r)).toBe('plan_limit_exceeded');
      expect(r.body.error.type).toBe('payment_error');
      expect(typeof r.body.error.upgrade_url).toBe('string');
    }
    const atCap = await t.req('POST', '/v1/agents', { body: { name: 'atcap', daily_send_limit: caps.daily, hourly_send_limit: caps.hourly } });
    expect(atCap.status).toBe(201);
    const p = await t.req('PATCH', '/v1/agents/atcap', { body: { hourly_send_limit: caps.hourly + 1 } });
    expect(p.status).toBe(402);
    expect(code(p)).toBe('plan_limit_exceeded');
  });

  it('the plan’s live-agent cap is 402 plan_limit_exceeded; archiving frees a place', async () => {
    const made: string[] = [];
    while ((await liveAgentCount()) < TIER_CAPS.free.agents) {
      const r = await t.req('POST', '/v1/agents', { body: { name: `filler-${made.length}` } });
      expect(r.status).toBe(201);
      made.push(r.body.id);
    }
    const over = await t.req('POST', '/v1/agents', { body: { name: 'one-too-many' } });
    expect(over.status).toBe(402);
    expect(code(over)).toBe('plan_limit_exceeded');
    await t.req('DELETE', `/v1/agents/${made.pop() ?? 'atcap'}`);
    expect((await t.req('POST', '/v1/agents', { body: { name: 'one-too-many' } })).status).toBe(201);
    for (const id of [...made, 'one-too-many']) await t.req('DELETE', `/v1/agents/${id}`);
  });
});

describe('GET /v1/agents and /v1/agents/{id}', () => {
  it('gets by id, name or address; unknown is 404 agent_not_found', async () => {
    const a = t.boot.agent;
    for (const ref of [a.id, 'agent', 'AGENT', a.email, a.email.toUpperCase()]) {
      const r = await t.req('GET', `/v1/agents/${encodeURIComponent(ref)}`);
      expect(r.status, ref).toBe(200);
      expect(r.body.id).toBe(a.id);
    }
    for (const ref of ['nobody', 'agt_00000000000000000000000000', 'agent@elsewhere.example']) {
      const r = await t.req('GET', `/v1/agents/${encodeURIComponent(ref)}`);
      expect(r.status, ref).toBe(404);
      expect(code(r), ref).toBe('agent_not_found');
    }
  });

  it('filters by status: live (default), all, active, paused, archived', async () => {
    const act = await t.req('POST', '/v1/agents', { body: { name: 'flt-active' } });
    const pau = await t.req('POST', '/v1/agents', { body: { name: 'flt-paused' } });
    const arc = await t.req('POST', '/v1/agents', { body: { name: 'flt-archived' } });
    await t.req('PATCH', `/v1/agents/${pau.body.id}`, { body: { status: 'paused' } });
    await t.req('DELETE', `/v1/agents/${arc.body.id}`);
    const ids = async (status?: string) => {
      const r = await t.req('GET', '/v1/agents', { query: { limit: 100, status } });
      expect(r.status).toBe(200);
      return r.body.data.map((a: { id: string; status: string }) => ({ id: a.id, status: a.status })) as { id: string; status: string }[];
    };
    const live = await ids();
    expect(live.map((a) => a.id)).toEqual(expect.arrayContaining([act.body.id, pau.body.id]));
    expect(live.map((a) => a.id)).not.toContain(arc.body.id);
    expect(new Set(live.map((a) => a.status))).toEqual(new Set(['active', 'paused']));
    expect(await ids('live')).toEqual(live);
    const all = await ids('all');
    expect(all.map((a) => a.id)).toEqual(expect.arrayContaining([act.body.id, pau.body.id, arc.body.id]));
    expect((await ids('active')).every((a) => a.status === 'active')).toBe(true);
    expect((await ids('active')).map((a) => a.id)).toContain(act.body.id);
    expect((await ids('paused')).map((a) => a.id)).toEqual([pau.body.id]);
    const archived = await ids('archived');
    expect(archived.every((a) => a.status === 'archived')).toBe(true);
    expect(archived.map((a) => a.id)).toContain(arc.body.id);
    // newest first
    expect(all.map((a) => a.id)).toEqual([...all.map((a) => a.id)].sort().reverse());
    const bad = await t.req('GET', '/v1/agents', { query: { status: 'deleted' } });
    expect(bad.status).toBe(400);
    expect(code(bad)).toBe('invalid_param_value');
    expect(bad.body.error.param).toBe('status');
  });

  it('pages newest first', async () => {
    const first = await t.req('GET', '/v1/agents', { query: { limit: 2, status: 'all' } });
    expect(first.body.data.length).toBe(2);
    expect(first.body.has_more).toBe(true);
    const second = await t.req('GET', '/v1/agents', { query: { limit: 2, status: 'all', cursor: first.body.next_cursor } });
    expect(second.body.data[0].id < first.body.data[1].id).toBe(true);
    expect(code(await t.req('GET', '/v1/agents', { query: { limit: 101 } }))).toBe('invalid_param_value');
    expect((await t.req('GET', '/v1/agents', { query: { cursor: 'bogus' } })).body.error.param).toBe('cursor');
  });
});

describe('agent status machine (spec: States and transitions → Agent status)', () => {
  it('active → paused → active, then DELETE → archived with archived_at', async () => {
    const a = await t.req('POST', '/v1/agents', { body: { name: 'cycle' } });
    const paused = await t.req('PATCH', `/v1/agents/${a.body.id}`, { body: { status: 'paused' } });
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('paused');
    t.clock.advance(1000);
    const resumed = await t.req('PATCH', '/v1/agents/cycle', { body: { status: 'active' } });
    expect(resumed.body.status).toBe('active');
    expect(resumed.body.updated_at).toBe(new Date(t.clock.now()).toISOString());
    await t.req('PATCH', '/v1/agents/cycle', { body: { status: 'paused' } });
    t.clock.advance(1000);
    const del = await t.req('DELETE', '/v1/agents/cycle');
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: a.body.id, status: 'archived', archived_at: new Date(t.clock.now()).toISOString() });
    const got = await t.req('GET', `/v1/agents/${a.body.id}`);
    expect(got.body.status).toBe('archived');
    expect(got.body.archived_at).toBe(del.body.archived_at);
  });

  it('PATCH only accepts active or paused as status', async () => {
    for (const status of ['archived', 'deleted', 'ACTIVE']) {
      const r = await t.req('PATCH', '/v1/agents/agent', { body: { status } });
      expect(r.status).toBe(400);
      expect(code(r)).toBe('invalid_param_value');
      expect(r.body.error.param).toBe('status');
    }
    expect(code(await t.req('PATCH', '/v1/agents/agent', { body: { name: 'rename' } }))).toBe('invalid_field');
  });

  it('any change on an archived agent is 409 agent_archived; its address is never reused', async () => {
    const a = await t.req('POST', '/v1/agents', { body: { name: 'retired' } });
    await t.req('DELETE', `/v1/agents/${a.body.id}`);
    for (const body of [{ status: 'active' }, { status: 'paused' }, { display_name: 'x' }, { classify_inbound: false }, {}]) {
      const r = await t.req('PATCH', `/v1/agents/${a.body.id}`, { body });
      expect(r.status, JSON.stringify(body)).toBe(409);
      expect(code(r)).toBe('agent_archived');
    }
    const again = await t.req('DELETE', `/v1/agents/${a.body.id}`);
    expect(again.status).toBe(409);
    expect(code(again)).toBe('agent_archived');
    const reuse = await t.req('POST', '/v1/agents', { body: { name: 'retired' } });
    expect(reuse.status).toBe(409);
    expect(code(reuse)).toBe('agent_name_conflict');
    const reuseCase = await t.req('POST', '/v1/agents', { body: { name: 'RETIRED' } });
    expect(code(reuseCase)).toBe('agent_name_conflict');
    // Still reachable by name for reading.
    expect((await t.req('GET', '/v1/agents/retired')).body.id).toBe(a.body.id);
  });

  it('PATCH stores and returns limits and lists; a later PATCH can clear them', async () => {
    const a = await t.req('POST', '/v1/agents', { body: { name: 'settings' } });
    const r = await t.req('PATCH', `/v1/agents/${a.body.id}`, {
      body: { daily_send_limit: 100, hourly_send_limit: 10, classify_inbound: false, allowlist_domains: ['A.com'], blocklist_domains: ['b.com'] },
    });
    expect(r.body).toMatchObject({ daily_send_limit: 100, hourly_send_limit: 10, classify_inbound: false, allowlist_domains: ['a.com'], blocklist_domains: ['b.com'] });
    expect((await t.req('GET', `/v1/agents/${a.body.id}`)).body).toEqual(r.body);
    const cleared = await t.req('PATCH', `/v1/agents/${a.body.id}`, { body: { daily_send_limit: null, allowlist_domains: [] } });
    expect(cleared.body.daily_send_limit).toBeUndefined(); // absent fields are omitted (docs/api-foundation.md)
    expect(cleared.body).toMatchObject({ hourly_send_limit: 10, allowlist_domains: [], blocklist_domains: ['b.com'] });
    const bad = await t.req('PATCH', `/v1/agents/${a.body.id}`, { body: { allowlist_domains: ['good.com', 'x.com', 'not_ok'] } });
    expect(bad.body.error.param).toBe('allowlist_domains[2]');
    expect((await t.req('GET', `/v1/agents/${a.body.id}`)).body.allowlist_domains).toEqual([]);
    await t.req('DELETE', `/v1/agents/${a.body.id}`);
  });

  it('emits agent.created / paused / resumed / archived events', async () => {
    const a = await t.req('POST', '/v1/agents', { body: { name: 'evented' } });
    await t.req('PATCH', '/v1/agents/evented', { body: { status: 'paused' } });
    await t.req('PATCH', '/v1/agents/evented', { body: { status: 'paused' } });
    await t.req('PATCH', '/v1/agents/evented', { body: { status: 'active' } });
    await t.req('DELETE', '/v1/agents/evented');
    const rows = await t.ctx.db.selectFrom('events').select(['type']).where('agent_id', '=', a.body.id).orderBy('id').execute();
    expect(rows.map((r) => r.type)).toEqual(['agent.created', 'agent.paused', 'agent.resumed', 'agent.archived']);
  });
});

describe('live_mode_required (spec: Errors)', () => {
  it('a test key may change an agent with no live material, not one with a live key or live mail', async () => {
    const free = await t.req('POST', '/v1/agents', { key: t.testKey, body: { name: 'sandbox' } });
    expect(free.status).toBe(201);
    expect((await t.req('PATCH', '/v1/agents/sandbox', { key: t.testKey, body: { status: 'paused' } })).status).toBe(200);

    const withKey = await t.req('POST', '/v1/agents', { body: { name: 'haslivekey' } });
    await t.makeKey({ scopes: ['read'], agent_id: withKey.body.id });
    for (const [m, body] of [['PATCH', { status: 'paused' }], ['PATCH', { display_name: 'x' }], ['DELETE', undefined]] as const) {
      const r = await t.req(m, '/v1/agents/haslivekey', { key: t.testKey, body });
      expect(r.status, m).toBe(403);
      expect(code(r)).toBe('live_mode_required');
    }
    expect((await t.req('GET', '/v1/agents/haslivekey', { key: t.testKey })).body.status).toBe('active');

    const withMail = await t.req('POST', '/v1/agents', { body: { name: 'haslivemail' } });
    await inTransaction(t.ctx, (tx) => assignThread(t.ctx, tx, {
      workspaceId: t.boot.workspace.id, agentId: withMail.body.id, subject: 'hello', direction: 'outbound', messageId: 'msg_x',
      rfcMessageId: '<x@example>', participants: ['a@example.com'], testMode: false, at: t.clock.now(),
    }));
    const r = await t.req('DELETE', '/v1/agents/haslivemail', { key: t.testKey });
    expect(code(r)).toBe('live_mode_required');

    const testMail = await t.req('POST', '/v1/agents', { body: { name: 'hastestmail' } });
    await inTransaction(t.ctx, (tx) => assignThread(t.ctx, tx, {
      workspaceId: t.boot.workspace.id, agentId: testMail.body.id, subject: 'hello', direction: 'outbound', messageId: 'msg_y',
      rfcMessageId: '<y@example>', participants: ['a@example.com'], testMode: true, at: t.clock.now(),
    }));
    expect((await t.req('DELETE', '/v1/agents/hastestmail', { key: t.testKey })).status).toBe(200);
    // Live keys are not restricted.
    expect((await t.req('DELETE', '/v1/agents/haslivekey')).status).toBe(200);
    expect((await t.req('DELETE', '/v1/agents/haslivemail')).status).toBe(200);
    expect((await t.req('DELETE', '/v1/agents/sandbox')).status).toBe(200);
  });
});

describe('agent-bound keys (spec: Agent-bound keys)', () => {
  it('see and act on their own agent only', async () => {
    const mine = await t.req('POST', '/v1/agents', { body: { name: 'mine' } });
    const theirs = await t.req('POST', '/v1/agents', { body: { name: 'theirs' } });
    const bound = await t.makeKey({ scopes: ['read', 'manage', 'send', 'draft'], agent_id: mine.body.id });

    const list = await t.req('GET', '/v1/agents', { key: bound, query: { status: 'all', limit: 100 } });
    expect(list.body.data.map((a: { id: string }) => a.id)).toEqual([mine.body.id]);
    expect((await t.req('GET', '/v1/agents/mine', { key: bound })).body.id).toBe(mine.body.id);
    for (const ref of [theirs.body.id, 'theirs', theirs.body.email, 'agent']) {
      const g = await t.req('GET', `/v1/agents/${ref}`, { key: bound });
      expect(g.status, ref).toBe(404);
      expect(code(g)).toBe('agent_not_found');
      expect((await t.req('PATCH', `/v1/agents/${ref}`, { key: bound, body: { status: 'paused' } })).status).toBe(404);
      expect((await t.req('DELETE', `/v1/agents/${ref}`, { key: bound })).status).toBe(404);
    }
    expect((await t.req('GET', `/v1/agents/${theirs.body.id}`)).body.status).toBe('active');

    const create = await t.req('POST', '/v1/agents', { key: bound, body: { name: 'spawn' } });
    expect(create.status).toBe(403);
    expect(code(create)).toBe('insufficient_scope');
    for (const body of [{ daily_send_limit: 5 }, { hourly_send_limit: 5 }, { allowlist_domains: ['a.com'] }, { blocklist_domains: ['a.com'] }, { daily_send_limit: null }]) {
      const r = await t.req('PATCH', '/v1/agents/mine', { key: bound, body });
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(code(r)).toBe('insufficient_scope');
    }
    // It may pause and resume its own agent and change other settings.
    expect((await t.req('PATCH', '/v1/agents/mine', { key: bound, body: { status: 'paused' } })).body.status).toBe('paused');
    expect((await t.req('PATCH', '/v1/agents/mine', { key: bound, body: { status: 'active', display_name: 'Mine' } })).body.display_name).toBe('Mine');
    const me = await t.req('GET', '/v1/me', { key: bound });
    expect(me.body.agent.id).toBe(mine.body.id);
    expect(me.body.api_key.agent_id).toBe(mine.body.id);
  });
});

describe('GET /v1/me', () => {
  it('answers exactly the spec’s shape; agent null for unbound keys', async () => {
    const r = await t.req('GET', '/v1/me');
    expect(Object.keys(r.body).sort()).toEqual(['agent', 'api_key', 'workspace']);
    expect(Object.keys(r.body.api_key).sort()).toEqual(['agent_id', 'created_at', 'id', 'last_used_at', 'mode', 'name', 'prefix', 'scopes'].sort());
    expect(r.body.api_key).toMatchObject({ id: t.boot.keys.live.id, mode: 'live', scopes: ['send', 'read', 'manage', 'draft'], agent_id: null });
    expect(r.body.workspace).toEqual({ id: t.boot.workspace.id, slug: 'local', display_name: 'local', tier: 'free', tier_status: 'active' });
    expect(r.body.agent).toBeNull();
    expect((await t.req('GET', '/api/v1/me', { key: t.testKey })).body.api_key.id).toBe(t.boot.keys.test.id);
  });
});
