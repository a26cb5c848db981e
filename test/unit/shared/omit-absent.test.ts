import { describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import { Nullable, Opt, omitAbsent } from '../../../src/contract/common.js';
import { routes } from '../../../src/contract/routes.js';
import type { RouteDef } from '../../../src/contract/route.js';
import { Event } from '../../../src/contract/events.js';

// omitAbsent turns each schema into a walker once (contract/common.ts); this is the rule as it
// was written before, walking the schema on every value: both must change a value the same way.
function acceptsNull(s: unknown): boolean {
  if (!s || typeof s !== 'object') return true;
  const o = s as Record<string, unknown>;
  if (o.type === 'null' || (Array.isArray(o.type) && o.type.includes('null'))) return true;
  const alts = (o.anyOf ?? o.oneOf) as unknown[] | undefined;
  if (alts) return alts.some(acceptsNull);
  if (o.allOf) return (o.allOf as unknown[]).every(acceptsNull);
  return !('type' in o) && !('properties' in o) && !('enum' in o) && !('const' in o) && !('format' in o);
}
function walk(s: unknown, v: unknown): void {
  if (!s || typeof s !== 'object' || v === null || typeof v !== 'object') return;
  const o = s as Record<string, unknown>;
  const alts = (o.anyOf ?? o.oneOf ?? o.allOf) as unknown[] | undefined;
  if (alts) {
    for (const a of alts) walk(a, v);
    return;
  }
  if (Array.isArray(v)) {
    if (o.items) for (const item of v) walk(o.items, item);
    return;
  }
  const rec = v as Record<string, unknown>;
  const props = o.properties as Record<string, unknown> | undefined;
  if (props) {
    for (const [k, ps] of Object.entries(props)) {
      if (!(k in rec)) continue;
      if (rec[k] === null) {
        if (!acceptsNull(ps)) delete rec[k];
      } else walk(ps, rec[k]);
    }
  }
  const pattern = o.patternProperties as Record<string, unknown> | undefined;
  const extra = pattern ? Object.values(pattern)[0] : (typeof o.additionalProperties === 'object' ? o.additionalProperties : undefined);
  if (extra) for (const [k, x] of Object.entries(rec)) if (!props || !(k in props)) walk(extra, x);
}

/** A seeded generator, so a failure can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

/** A value shaped after `s`, with nulls, missing fields, extra fields and wrong types sprinkled in. */
function sample(s: unknown, r: () => number, depth = 0): unknown {
  const roll = r();
  if (roll < 0.15) return null;
  if (roll < 0.2) return depth < 5 ? { stray: null, n: 1, o: { x: null } } : 'x';
  if (!s || typeof s !== 'object') return r() < 0.5 ? 'text' : 3;
  const o = s as Record<string, unknown>;
  const alts = (o.anyOf ?? o.oneOf ?? o.allOf) as unknown[] | undefined;
  if (alts?.length) {
    if (o.allOf) return Object.assign({}, ...alts.map((a) => sample(a, r, depth + 1)).filter((x) => x && typeof x === 'object' && !Array.isArray(x)));
    return sample(alts[Math.floor(r() * alts.length)], r, depth + 1);
  }
  if (depth > 7) return 'deep';
  if (o.type === 'array' || o.items) return Array.from({ length: Math.floor(r() * 3) }, () => sample(o.items, r, depth + 1));
  if (o.type === 'object' || o.properties || o.patternProperties || o.additionalProperties) {
    const out: Record<string, unknown> = {};
    for (const [k, ps] of Object.entries((o.properties ?? {}) as Record<string, unknown>)) if (r() < 0.85) out[k] = sample(ps, r, depth + 1);
    const extra = o.patternProperties ? Object.values(o.patternProperties as object)[0] : o.additionalProperties;
    if (r() < 0.5) out[`extra_${Math.floor(r() * 9)}`] = extra && typeof extra === 'object' ? sample(extra, r, depth + 1) : null;
    return out;
  }
  if (o.type === 'boolean') return r() < 0.5;
  if (o.type === 'integer' || o.type === 'number') return Math.floor(r() * 100);
  return 'text';
}

describe('omitAbsent (a walker built once per schema)', () => {
  const schemas: [string, unknown][] = [['Event', Event]];
  for (const [id, def] of Object.entries(routes as Record<string, RouteDef>)) if (def.response) schemas.push([id, def.response]);

  it('changes every response and event shape of the contract exactly as the rule walked per value does', () => {
    expect(schemas.length).toBeGreaterThan(50);
    let dropped = 0;
    for (const [name, schema] of schemas) {
      const r = rng(name.length * 7919 + 1);
      for (let i = 0; i < 60; i++) {
        const value = sample(schema, r);
        const expected = structuredClone(value);
        walk(schema, expected);
        const got = structuredClone(value);
        expect(omitAbsent(schema as never, got), `${name} #${i}`).toEqual(expected);
        if (JSON.stringify(expected) !== JSON.stringify(value)) dropped++;
      }
    }
    expect(dropped).toBeGreaterThan(100); // the samples do exercise the rule
  });

  it('drops null where the schema says optional, keeps it where it says nullable, through arrays, unions and records', () => {
    const S = Type.Object({
      a: Opt(Type.String()),
      b: Nullable(Type.String()),
      list: Type.Array(Type.Object({ c: Opt(Type.Number()), d: Nullable(Type.Number()) })),
      either: Type.Union([Type.Object({ e: Opt(Type.String()) }), Type.Object({ f: Opt(Type.String()) })]),
      map: Type.Record(Type.String(), Type.Object({ g: Opt(Type.String()) })),
      any: Type.Unknown(),
    });
    const v = { a: null, b: null, list: [{ c: null, d: null }], either: { e: null, f: null }, map: { k: { g: null } }, any: null };
    expect(omitAbsent(S, v)).toEqual({ b: null, list: [{ d: null }], either: {}, map: { k: {} }, any: null });
    expect(omitAbsent(S, null)).toBeNull();
    expect(omitAbsent(undefined, { a: null })).toEqual({ a: null });
  });

  it('walks a schema that contains itself', () => {
    const Node: Record<string, unknown> = { type: 'object', properties: { name: Opt(Type.String()) } };
    (Node.properties as Record<string, unknown>).child = Node;
    const v = { name: null, child: { name: null, child: { name: 'x', child: null } } };
    expect(omitAbsent(Node as never, v)).toEqual({ child: { child: { name: 'x' } } });
  });
});
