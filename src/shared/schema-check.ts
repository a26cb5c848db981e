import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import { ApiError, pointerToParam } from '../contract/errors.js';
import { ERROR_MESSAGE } from '../contract/common.js';
import { Errors } from './errors.js';
import { editDistance } from './edit-distance.js';

/**
 * The one JSON-schema validator of the contract's schemas: fastify's validator compiler
 * (server/http/validation.ts) and the services that validate a body themselves (a batch item, a
 * draft sent later: services/send.ts) compile with the same ajv settings, share the compiled
 * function, and turn its errors into the spec's codes with the same messages.
 */

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (a: Ajv) => Ajv;

export function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
    // Checking a schema against the JSON Schema meta-schema makes ajv compile the meta-schema
    // first: ~20-30 ms of the main thread (75-120 ms on a loaded machine) on the first request
    // that compiles a validator, once per instance (validators compile on a route's first request,
    // server/http/validation.ts). The schemas are the contract's own, fixed at build time: a test
    // checks every one of them against the meta-schema instead (test/unit/shared/schema-check.test.ts).
    validateSchema: false,
  });
  addFormats(ajv);
  return ajv;
}

/** Bodies are validated strictly (no coercion). */
const bodyAjv = makeAjv(false);
const bodyValidators = new WeakMap<object, ValidateFunction>();

/** Body values that passed a schema, so a service checking the same body again skips the walk. */
const passed = new WeakMap<object, object>();

/** The compiled body validator of a schema, compiled once per schema object. */
export function compileBodyValidator(schema: object): ValidateFunction {
  let v = bodyValidators.get(schema);
  if (!v) bodyValidators.set(schema, (v = bodyAjv.compile(schema)));
  return v;
}

/**
 * Validate a body; null when it passes, else ajv's errors. fastify's validator for request bodies
 * (server/http/validation.ts) is this function.
 */
export function validateBody(schema: object, value: unknown): ErrorObject[] | null {
  const validate = compileBodyValidator(schema);
  if (validate(value)) {
    const lone = illFormedAt(value);
    if (lone) return [lone];
    if (value && typeof value === 'object') passed.set(value, schema);
    return null;
  }
  return validate.errors ?? [];
}

/**
 * The first string (or key) of a JSON body holding a lone UTF-16 surrogate (`"\ud800x"`: valid
 * JSON, no text; RFC 8259 §8.2), as an error naming it; else null. Such a string cannot be stored
 * as UTF-8 (it became U+FFFD, silently); refused alike in every field of every body. A string
 * of one-byte characters is answered without a scan; the walk keeps its own stack (no recursion).
 */
function illFormedAt(value: unknown): ErrorObject | null {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (!wellFormed(v)) return loneSurrogate(path);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}/${i}`]);
    } else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (!wellFormed(k)) return { ...loneSurrogate(path), propertyName: (k as unknown as WellFormed).toWellFormed() } as ErrorObject;
        stack.push([child, `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
      }
    }
  }
  return null;
}

/** ES2024's String methods (Node >= 20 has them; the build's lib is ES2023). */
type WellFormed = { isWellFormed(): boolean; toWellFormed(): string };
const wellFormed = (s: string): boolean => (s as unknown as WellFormed).isWellFormed();

const loneSurrogate = (instancePath: string): ErrorObject => ({
  keyword: 'wellFormed', instancePath, schemaPath: '', params: {},
  message: 'holds a lone UTF-16 surrogate (such as \\ud800 without its pair), which is no character and cannot be stored; send the text as UTF-8, or escape both halves of a pair (\\ud83d\\ude00)',
});

/**
 * Validate a request body against its contract schema; a refusal is the ApiError the HTTP layer
 * answers for the same body. A body fastify already validated against this very schema (the
 * request body of POST /v1/messages) is not walked twice: a 25 MB attachment's base64 check is
 * tens of milliseconds of the main thread.
 */
export function checkBody(schema: object, value: unknown): void {
  if (value && typeof value === 'object' && passed.get(value) === schema) return;
  const errors = validateBody(schema, value);
  if (errors) throw validationToApiError(errors, 'body', { schema, data: value });
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string', array: 'an array', object: 'an object', integer: 'a whole number', number: 'a number', boolean: 'true or false', null: 'null',
};

/** The schema node an ajv schemaPath (`#/properties/to/anyOf/1/maxItems`) points into (its keyword's parent). */
function schemaNode(root: unknown, schemaPath: string): Record<string | symbol, unknown> | null {
  const segs = schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  segs.pop(); // the keyword
  let node: unknown = root;
  for (const s of segs) {
    if (!node || typeof node !== 'object') return null;
    node = (node as Record<string, unknown>)[s];
  }
  return node && typeof node === 'object' ? node as Record<string | symbol, unknown> : null;
}

function valueAt(data: unknown, pointer: string): unknown {
  let v = data;
  for (const raw of pointer.split('/').slice(1)) {
    if (!v || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return v;
}

/**
 * The error to report. ajv lists a union's failed branches before the anyOf error itself; a branch
 * that failed on `type` is simply the wrong branch for this value, so the first error of a branch
 * of the right type says what is wrong (`to` with 51 addresses: maxItems, not "must be string").
 */
function pick(errors: ErrorObject[]): ErrorObject {
  const union = errors.find((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  if (union) {
    const inBranch = (e: ErrorObject) => e !== union && e.schemaPath.startsWith(`${union.schemaPath}/`);
    const telling = errors.find((e) => inBranch(e) && !(e.keyword === 'type' && e.instancePath === union.instancePath));
    if (telling) return telling;
    return union;
  }
  return errors[0];
}

/**
 * Ajv errors → the spec's validation codes: a missing required field → missing_field; an
 * unknown field or a body of the wrong shape → invalid_field; anything else (type, length,
 * range, pattern, enum, format) → invalid_param_value. `param` names the field as the client
 * wrote it (`to[3]`, `metadata.key`); the message says what is allowed. With the schema and the
 * value (both optional), the message can quote the schema's ERROR_MESSAGE (contract/common.ts) and
 * the actual size.
 */
export function validationToApiError(errors: ErrorObject[], context: string, opts: { schema?: unknown; data?: unknown } = {}): ApiError {
  const err = errors.length ? pick(errors) : ({ keyword: 'type', instancePath: '', schemaPath: '#/type', params: {} } as ErrorObject);
  // A propertyNames failure is about a key of the object at instancePath (metadata keys).
  const propertyName = (err as ErrorObject & { propertyName?: string }).propertyName
    ?? (err.keyword === 'propertyNames' ? (err.params as { propertyName?: string }).propertyName : undefined);
  const base = pointerToParam(err.instancePath);
  const join = (child: string) => (base ? `${base}.${child}` : child);
  const where = context === 'querystring' ? 'query parameter' : context === 'params' ? 'path parameter' : 'field';
  switch (err.keyword) {
    case 'required': {
      const field = join(String((err.params as { missingProperty: string }).missingProperty));
      return context === 'querystring' ? Errors.missingParam(field) : Errors.missingField(field);
    }
    case 'additionalProperties': {
      const p = err.params as { additionalProperty: string; known?: string[] };
      const field = join(String(p.additionalProperty));
      const near = closest(String(p.additionalProperty), p.known ?? []);
      return Errors.invalidField(field, `Unknown ${where} \`${field}\`${near ? `; did you mean \`${near}\`?` : '.'}`);
    }
  }
  if (!base && context === 'body' && propertyName === undefined) return Errors.invalidField('body', 'The request body must be a JSON object.');
  const param = propertyName !== undefined ? join(propertyName.slice(0, 80)) : base || context;
  const node = opts.schema ? schemaNode(opts.schema, err.schemaPath) : null;
  const custom = node?.[ERROR_MESSAGE];
  if (typeof custom === 'string') return Errors.invalidParam(param, `The ${where} \`${param}\` ${custom}.`);
  const value = propertyName !== undefined ? propertyName : opts.data !== undefined ? valueAt(opts.data, err.instancePath) : undefined;
  const p = err.params as Record<string, unknown>;
  let detail: string;
  switch (err.keyword) {
    case 'type': {
      const types = String(p.type).split(',').map((t) => TYPE_NAMES[t] ?? t);
      detail = `must be ${types.join(' or ')}`;
      break;
    }
    case 'anyOf':
    case 'oneOf': {
      const alts = (node?.[err.keyword] as { type?: string }[] | undefined)?.map((s) => (s.type ? TYPE_NAMES[s.type] ?? s.type : null)).filter(Boolean);
      detail = alts?.length ? `must be ${alts.join(' or ')}` : 'is not valid';
      break;
    }
    case 'maxLength':
      detail = typeof value === 'string' ? `is ${value.length} characters long; at most ${p.limit} are allowed` : `must be at most ${p.limit} characters long`;
      break;
    case 'minLength':
      detail = p.limit === 1 ? 'must not be empty' : `must be at least ${p.limit} characters long`;
      break;
    case 'maxItems':
      detail = Array.isArray(value) ? `has ${value.length} items; at most ${p.limit} are allowed` : `must have at most ${p.limit} items`;
      break;
    case 'minItems':
      detail = `must have at least ${p.limit} items`;
      break;
    case 'maxProperties':
      detail = value && typeof value === 'object' ? `has ${Object.keys(value).length} keys; at most ${p.limit} are allowed` : `must have at most ${p.limit} keys`;
      break;
    case 'format':
      detail = p.format === 'date-time' ? 'must be an ISO 8601 timestamp with a time zone, e.g. 2026-05-01T09:00:00Z' : `must be a valid ${p.format}`;
      break;
    default: {
      const allowed = p.allowedValues as unknown[] | undefined;
      detail = allowed ? `must be one of: ${allowed.join(', ')}` : err.message ?? 'is not valid';
    }
  }
  return Errors.invalidParam(param, `The ${where} \`${param}\` ${detail}.`);
}

/** The known name an unknown one was probably meant to be (a plural, a typo): edit distance ≤ 2. */
function closest(name: string, known: string[]): string | null {
  let best: string | null = null;
  let bestD = 3;
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase(), 2);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}
