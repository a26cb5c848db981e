import { Type, type TSchema, type TObject, type TProperties } from 'typebox';
import { Value } from 'typebox/value';
import { ApiError, pointerToParam } from '../contract/errors.js';

/**
 * Tool schemas are the contract's TypeBox schemas (one source of truth): TypeBox schemas are JSON
 * Schema already, so a tool's `inputSchema`/`outputSchema` is the contract schema itself, copied
 * to plain JSON (TypeBox keeps its own bookkeeping under symbol keys, which JSON drops) with the
 * `$id`s removed (a tool schema must stand alone).
 */
export function toJsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key === '$id' || key.startsWith('~') ? undefined : value))) as Record<string, unknown>;
}

/**
 * A tool's input: the route's path id under a name a model will not confuse (`message_id`, not
 * `id`), then the request body's or query's own fields, then the MCP-only fields. Unknown fields
 * are refused (`invalid_field` naming the field) so that a model's typo is told, not ignored.
 */
export function toolInput(...parts: (TProperties | TObject)[]): TObject {
  const props: TProperties = {};
  for (const p of parts) Object.assign(props, 'properties' in p && typeof p.properties === 'object' && (p as TObject).type === 'object' ? (p as TObject).properties : p);
  return Type.Object(props, { additionalProperties: false });
}

/** The contract object's fields without the named ones (aliases a model should not be offered). */
export function omit(schema: TObject, names: string[]): TProperties {
  return Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !names.includes(k)));
}

/** Add model-facing descriptions to fields (the contract schemas mostly carry none). */
export function describe<T extends TProperties>(props: T, text: Record<string, string>): T {
  const out: TProperties = {};
  for (const [k, s] of Object.entries(props)) {
    const d = text[k];
    // Copy every own property: TypeBox marks optional fields with a non-enumerable `~optional`.
    out[k] = d ? Object.defineProperties({ description: d }, Object.getOwnPropertyDescriptors(s)) as TSchema : s;
    if (d) (out[k] as { description?: string }).description = d;
  }
  return out as T;
}

/**
 * Check tool arguments against the tool's input schema before any API call. A refusal is the same
 * error the REST API gives for a bad body (spec: Errors → missing_field / invalid_field /
 * invalid_param_value, `param` naming the field as the caller wrote it), so a model sees one
 * vocabulary whichever layer refused.
 */
export function checkArgs(schema: TObject, args: unknown): void {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new ApiError(400, 'invalid_request_error', 'invalid_field', 'The tool arguments must be a JSON object.', { param: 'arguments' });
  }
  // TypeBox reports an unknown field twice (`additionalProperties: false` as a false schema, then
  // the keyword itself), and a union's mismatch once per branch at the union's own path: the
  // deepest error is the one that names the item actually wrong (`to[1]`, not `to`).
  const errors = [...Value.Errors(schema, args)].filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf' && !(e.keyword === 'boolean' && e.schemaPath.endsWith('/additionalProperties')));
  const depth = (p: string) => p.split('/').length;
  const first = errors.reduce<(typeof errors)[number] | undefined>((best, e) => (!best || depth(e.instancePath) > depth(best.instancePath) ? e : best), undefined);
  if (!first) return;
  const base = pointerToParam(first.instancePath);
  const join = (child: string) => (base ? `${base}.${child}` : child);
  const params = first.params as { requiredProperties?: string[]; additionalProperties?: string[]; allowedValues?: unknown[] };
  if (first.keyword === 'required') {
    const field = join(String(params.requiredProperties?.[0] ?? ''));
    throw new ApiError(400, 'invalid_request_error', 'missing_field', `Missing required field \`${field}\`.`, { param: field });
  }
  if (first.keyword === 'additionalProperties') {
    const field = join(String(params.additionalProperties?.[0] ?? ''));
    const known = Object.keys(schema.properties).join(', ');
    throw new ApiError(400, 'invalid_request_error', 'invalid_field', `Unknown field \`${field}\`.${base ? '' : ` This tool takes: ${known}.`}`, { param: field });
  }
  const allowed = params.allowedValues;
  const detail = allowed ? `must be one of: ${allowed.join(', ')}` : first.message;
  throw new ApiError(400, 'invalid_request_error', 'invalid_param_value', `The field \`${base || 'arguments'}\` ${detail}.`, { param: base || 'arguments' });
}

/** The same field, required (a query field the tool cannot do without, e.g. check_suppression's address). */
export function required<T extends TSchema>(schema: T): T {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(schema)) as T;
  delete (copy as Record<string, unknown>)['~optional'];
  return copy;
}
