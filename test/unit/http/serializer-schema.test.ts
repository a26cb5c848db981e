import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { Nullable, Timestamp, omitAbsent } from '../../../src/contract/common.js';
import { Me } from '../../../src/contract/me.js';
import { forSerializer } from '../../../src/server/http/serializer-schema.js';

// A union with null is serialised with a typeof check instead of an ajv validation per response
// (server/http/serializer-schema.ts); the output must be the same.
describe('forSerializer', () => {
  it('turns anyOf [X, null] into type [X.type, null] and leaves the contract schema alone', () => {
    const s = Type.Object({ a: Nullable(Type.Object({ t: Timestamp }, { required: ['t'] })), b: Nullable(Type.String()), c: Type.Union([Type.String(), Type.Number()]) });
    const out = forSerializer(s) as unknown as { properties: Record<string, Record<string, unknown>> };
    expect(out.properties.a.type).toEqual(['object', 'null']);
    expect(out.properties.a.anyOf).toBeUndefined();
    expect((out.properties.a.properties as Record<string, unknown>).t).toMatchObject({ type: 'string', format: 'date-time' });
    expect(out.properties.b.type).toEqual(['string', 'null']);
    expect(out.properties.c.anyOf).toHaveLength(2); // not a union with null: unchanged
    expect((s.properties.a as unknown as { anyOf: unknown[] }).anyOf).toHaveLength(2);
  });

  it('serialises /v1/me the same as the contract schema does, with and without an agent', async () => {
    const agent = {
      id: 'agt_1', object: 'agent', name: 'support', display_name: null, email: 'support@acme.mailagent.localhost', domain: 'acme.mailagent.localhost',
      workspace_id: 'wsk_1', status: 'active', daily_send_limit: 10, hourly_send_limit: null, classify_inbound: true, allowlist_domains: ['a.example'],
      blocklist_domains: [], created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z', extra: 'dropped',
    };
    const me = (a: unknown) => ({
      api_key: { id: 'key_1', prefix: 'mk_test_abcd', name: 'k', mode: 'test', scopes: ['send'], agent_id: null, last_used_at: null, created_at: '2026-01-01T00:00:00.000Z' },
      workspace: { id: 'wsk_1', slug: 'acme', display_name: 'Acme', tier: 'free', tier_status: 'active' },
      agent: a,
    });
    const outputs: string[][] = [];
    for (const schema of [Me, forSerializer(Me)]) {
      const app = Fastify();
      let body: unknown = null;
      // As the daemon does (server/http/app.ts preSerialization): absent fields are dropped first.
      app.get('/', { schema: { response: { 200: schema } } }, async () => omitAbsent(Me, structuredClone(body)));
      const got: string[] = [];
      for (const a of [null, agent]) {
        body = me(a);
        got.push((await app.inject({ url: '/' })).body);
      }
      outputs.push(got);
      await app.close();
    }
    expect(outputs[1]).toEqual(outputs[0]);
    expect(JSON.parse(outputs[1][0]).agent).toBeNull();
    expect(JSON.parse(outputs[1][1]).agent.id).toBe('agt_1');
  });
});
