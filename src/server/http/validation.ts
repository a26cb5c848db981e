import type { ValidateFunction } from 'ajv';
import { pointerToParam } from '../../contract/errors.js';
import { makeAjv, validateBody } from '../../shared/schema-check.js';

/** Query strings and path params are strings, so those coerce; bodies use the shared strict validator. */
const urlAjv = makeAjv(true);

/**
 * Compiled on a route's first request, not at start: compiling every route's schemas up front was
 * ~15% of `serve`'s time to ready, and most daemons only ever see a few routes. fastify reads
 * `.errors` off the function it was given after a failed validation, so the wrapper mirrors it.
 */
export function compileValidator(schema: object, httpPart: string | undefined) {
  const integers = httpPart === 'body' ? [] : integerProperties(schema);
  const known = Object.keys((schema as { properties?: object }).properties ?? {});
  let compiled: ValidateFunction | null = null;
  const validate = (data: unknown): boolean => {
    // Coercion would read `1e1` or `0x10` as a number; a query integer is written in digits.
    for (const name of integers) {
      const raw = (data as Record<string, unknown> | null)?.[name];
      if (typeof raw === 'string' && !/^-?\d+$/.test(raw)) {
        validate.errors = [{ keyword: 'pattern', instancePath: `/${name}`, schemaPath: '', params: { pattern: '^-?\\d+$' }, message: 'must be a whole number written in digits' }];
        return false;
      }
    }
    if (httpPart === 'body') {
      // The body validator is shared with the services that check the same schema themselves
      // (shared/schema-check.ts): one compilation, one behaviour, and a body is walked once.
      validate.errors = validateBody(schema, data);
      return validate.errors === null;
    }
    compiled ??= urlAjv.compile(schema);
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

export { validationToApiError } from '../../shared/schema-check.js';
