import { describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { compileValidator, pointerToParam, validationToApiError } from '../../../src/server/http/validation.js';
import { AgentCreate } from '../../../src/contract/agents.js';
import { ListQuerySchema } from '../../../src/contract/common.js';

// Issue "HTTP core": param names the field as the client wrote it (`to[2]`, `limit`).
describe('pointerToParam', () => {
  it('turns JSON pointers into the client’s notation', () => {
    expect(pointerToParam('')).toBe('');
    expect(pointerToParam('/name')).toBe('name');
    expect(pointerToParam('/to/2')).toBe('to[2]');
    expect(pointerToParam('/to/3/address')).toBe('to[3].address');
    expect(pointerToParam('/tags/0/name')).toBe('tags[0].name');
    expect(pointerToParam('/metadata/a~1b')).toBe('metadata.a/b');
    expect(pointerToParam('/metadata/a~0b')).toBe('metadata.a~b');
  });
});

function errorFor(schema: object, value: unknown, part = 'body') {
  const v = compileValidator(schema, part);
  expect(v(value)).toBe(false);
  return validationToApiError(v.errors!, part === 'querystring' ? 'querystring' : part);
}

describe('validationToApiError', () => {
  it('missing required body field → missing_field', () => {
    const e = errorFor(AgentCreate, {});
    expect([e.status, e.code, e.param]).toEqual([400, 'missing_field', 'name']);
  });

  it('unknown field → invalid_field naming it', () => {
    const e = errorFor(AgentCreate, { name: 'x', nope: 1 });
    expect([e.code, e.param]).toEqual(['invalid_field', 'nope']);
  });

  it('nested item → invalid_param_value with index notation', () => {
    const e = errorFor(AgentCreate, { name: 'x', allowlist_domains: ['a', 'b', 3] });
    expect([e.code, e.param]).toEqual(['invalid_param_value', 'allowlist_domains[2]']);
    const nested = Type.Object({ to: Type.Array(Type.Object({ address: Type.String({ minLength: 3 }) })) });
    const e2 = errorFor(nested, { to: [{ address: 'abc' }, { address: 'abc' }, { address: 'abc' }, { address: '' }] });
    expect(e2.param).toBe('to[3].address');
  });

  it('enum errors list the allowed values', () => {
    const e = errorFor(Type.Object({ mode: Type.Enum(['live', 'test'] as const) }), { mode: 'prod' });
    expect(e.code).toBe('invalid_param_value');
    expect(e.message).toContain('live');
    expect(e.message).toContain('test');
  });

  it('a body of the wrong type → invalid_field, param body', () => {
    const e = errorFor(AgentCreate, [1, 2]);
    expect([e.code, e.param]).toEqual(['invalid_field', 'body']);
  });

  it('query strings coerce: "5" is a valid limit, "0" and "x" are not', () => {
    const v = compileValidator(ListQuerySchema, 'querystring');
    const q: Record<string, unknown> = { limit: '5' };
    expect(v(q)).toBe(true);
    expect(q.limit).toBe(5);
    const d: Record<string, unknown> = {};
    expect(v(d)).toBe(true);
    expect(d.limit).toBe(25);
    for (const limit of ['0', 'x', '101', '2.5']) {
      const e = errorFor(ListQuerySchema, { limit }, 'querystring');
      expect([e.code, e.param], limit).toEqual(['invalid_param_value', 'limit']);
    }
  });

  it('a required query parameter → missing_param; bodies never coerce', () => {
    const e = errorFor(Type.Object({ address: Type.String() }), {}, 'querystring');
    expect([e.code, e.param]).toEqual(['missing_param', 'address']);
    const b = errorFor(Type.Object({ n: Type.Integer() }), { n: '5' });
    expect([e.status, b.code, b.param]).toEqual([400, 'invalid_param_value', 'n']);
  });
});

describe('warmValidators: route validators compiled ahead of their first request', () => {
  it('compiles each pending validator once, one per turn, and the validators still refuse and pass', async () => {
    const { warmValidators } = await import('../../../src/server/http/validation.js');
    const cold: (() => void)[] = [];
    const query = compileValidator(ListQuerySchema, 'querystring', cold);
    const body = compileValidator(AgentCreate, 'body', cold);
    expect(cold).toHaveLength(2);
    // One per turn: after the first turn of the warm-up, one of the two is still waiting.
    const w = warmValidators(cold, 0);
    await new Promise((r) => setTimeout(r, 0));
    await new Promise((r) => setImmediate(r));
    expect(cold.length).toBeLessThan(2);
    expect(await w.done).toBeGreaterThanOrEqual(1);
    expect(cold).toHaveLength(0);
    expect(query({ limit: 'abc' })).toBe(false);
    expect(query({ limit: '5' })).toBe(true);
    expect(body({})).toBe(false);
    expect(body({ name: 'ok' })).toBe(true);
  });

  it('stop() ends the warm-up: what is left compiles on first use as before', async () => {
    const { warmValidators } = await import('../../../src/server/http/validation.js');
    const cold: (() => void)[] = [];
    const v = compileValidator(ListQuerySchema, 'querystring', cold);
    const w = warmValidators(cold, 60_000);
    w.stop();
    expect(cold).toHaveLength(1);
    expect(v({ limit: 'x' })).toBe(false);
  });

  it('a whole app: every route validator is registered for the warm-up, and requests validate after it', async () => {
    const { createTestApp } = await import('../../helpers/app.js');
    const { warmUpApp } = await import('../../../src/server/http/app.js');
    const t = await createTestApp();
    try {
      await t.app.ready();
      const n = await warmUpApp(t.app, 0).done;
      expect(n).toBeGreaterThan(90); // params, query and body schemas of the route table
      expect(await warmUpApp(t.app, 0).done).toBe(0); // nothing left
      expect((await t.req('GET', '/v1/agents?limit=abc')).body.error.code).toBe('invalid_param_value');
      expect((await t.req('POST', '/v1/agents', { body: {} })).body.error.code).toBe('missing_field');
    } finally {
      await t.close();
    }
  });
});

describe('repeated query parameters', () => {
  it('a parameter given twice is named as repeated, not as the wrong type', () => {
    const v = compileValidator(ListQuerySchema, 'querystring');
    expect(v({ limit: ['1', '2'] })).toBe(false);
    const e = validationToApiError(v.errors!, 'querystring');
    expect([e.status, e.code, e.param, e.message]).toEqual([400, 'invalid_param_value', 'limit', 'The query parameter `limit` is given 2 times; give it once.']);
    expect(v({ limit: '2' })).toBe(true);
  });
});
