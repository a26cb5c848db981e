import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import { ApiError, pointerToParam } from '../../contract/errors.js';
import { Errors } from '../../shared/errors.js';

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (a: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

/** Bodies are validated strictly; query strings and path params are strings, so those coerce. */
const bodyAjv = makeAjv(false);
const urlAjv = makeAjv(true);

/**
 * Compiled on a route's first request, not at start: compiling every route's schemas up front was
 * ~15% of `serve`'s time to ready, and most daemons only ever see a few routes. fastify reads
 * `.errors` off the function it was given after a failed validation, so the wrapper mirrors it.
 */
export function compileValidator(schema: object, httpPart: string | undefined) {
  const ajv = httpPart === 'body' ? bodyAjv : urlAjv;
  const integers = httpPart === 'body' ? [] : integerProperties(schema);
  const known = Object.keys((schema as { properties?: object }).properties ?? {});
  let compiled: ValidateFunction | null = null;
  const validate = (data: unknown): boolean => {
    // Coercion would read `1e1` or `0x10` as a number; a query integer is written in digits.
    for (const name of integers) {
      const raw = (data as Record<string, unknown> | null)?.[name];
      if (typeof raw === 'string' && !/^-?\d+$/.test(raw)) {
        validate.errors = [{ keyword: 'type', instancePath: `/${name}`, schemaPath: '', params: { type: 'integer' }, message: 'must be a whole number written in digits' }];
        return false;
      }
    }
    compiled ??= ajv.compile(schema);
    const ok = compiled(data);
    // An unknown top-level name carries the names the route does know, for a "did you mean".
    validate.errors = compiled.errors?.map((e) => (e.keyword === 'additionalProperties' && e.instancePath === '' ? { ...e, params: { ...e.params, known } } : e));
    return ok;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate;
}

// Shared with the MCP server's argument check (src/mcp), so both name a field the same way.
export { pointerToParam };

function integerProperties(schema: object): string[] {
  const props = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(props).filter(([, p]) => p.type === 'integer').map(([k]) => k);
}

/**
 * Ajv errors → the spec's validation codes: a missing required field → missing_field; an
 * unknown field or a body of the wrong shape → invalid_field; anything else (type, length,
 * range, pattern, enum, format) → invalid_param_value. `param` names the field.
 */
export function validationToApiError(errors: ErrorObject[], context: string): ApiError {
  const err = errors.find((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf') ?? errors[0];
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
    default: {
      if (!base && context === 'body') return Errors.invalidField('body', 'The request body must be a JSON object.');
      const allowed = (err.params as { allowedValues?: unknown[] }).allowedValues;
      const detail = allowed ? `must be one of: ${allowed.join(', ')}` : err.message ?? 'is not valid';
      return Errors.invalidParam(base || context, `The ${where} \`${base || context}\` ${detail}.`);
    }
  }
}

/** The known name an unknown one was probably meant to be (a plural, a typo): edit distance ≤ 2. */
function closest(name: string, known: string[]): string | null {
  let best: string | null = null;
  let bestD = 3;
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase());
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}
