/**
 * The response schema as handed to fastify's serialiser (fast-json-stringify), compiled once per
 * route at start. A union with null (`Nullable(X)` in the contract: `anyOf: [X, {type: 'null'}]`)
 * makes fast-json-stringify run an ajv validation of X against the value on every response to
 * pick the branch (formats included: every date-time of /v1/me's agent was parsed per request).
 * When X has a single `type`, the same shape is `type: [X.type, 'null']`, which it serialises with
 * a plain typeof check. Anything else is left as it is. The contract's own schema is not changed:
 * validation, omitAbsent and the published OpenAPI document keep using it.
 */
export function forSerializer<S>(schema: S): S {
  return rewrite(schema, new Map()) as S;
}

function rewrite(s: unknown, seen: Map<object, unknown>): unknown {
  if (Array.isArray(s)) return s.map((x) => rewrite(x, seen));
  if (!s || typeof s !== 'object') return s;
  const hit = seen.get(s);
  if (hit) return hit;
  const o = s as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  seen.set(s, out);
  for (const [k, v] of Object.entries(o)) out[k] = rewrite(v, seen);
  const alts = out.anyOf as Record<string, unknown>[] | undefined;
  if (Array.isArray(alts) && alts.length === 2) {
    const nullAt = alts.findIndex((a) => a && a.type === 'null' && Object.keys(a).length === 1);
    const other = alts[1 - nullAt];
    if (nullAt !== -1 && other && typeof other.type === 'string' && !('anyOf' in other) && !('oneOf' in other) && !('allOf' in other)) {
      delete out.anyOf;
      Object.assign(out, other, { type: [other.type, 'null'] });
    }
  }
  return out;
}
