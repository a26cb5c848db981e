import type { ValidateFunction } from 'ajv';
import { pointerToParam } from '../../contract/errors.js';
import { compileBodyValidator, makeAjv, validateBody } from '../../shared/schema-check.js';

/** Query strings and path params are strings, so those coerce; bodies use the shared strict validator. */
const urlAjv = makeAjv(true);

/**
 * Compiled on a route's first request or by the daemon's warm-up in idle turns after listen
 * (warmValidators), never at start: compiling every route's schemas up front was ~15% of
 * `serve`'s time to ready. fastify reads
 * `.errors` off the function it was given after a failed validation, so the wrapper mirrors it.
 */
export function compileValidator(schema: object, httpPart: string | undefined, cold?: (() => void)[]) {
  const integers = httpPart === 'body' ? [] : integerProperties(schema);
  const singles = httpPart === 'body' ? [] : singleValuedProperties(schema);
  const known = Object.keys((schema as { properties?: object }).properties ?? {});
  let compiled: ValidateFunction | null = null;
  const urlValidator = (): ValidateFunction => (compiled ??= urlAjv.compile(schema));
  // warmValidators (below) compiles it ahead of the first request, in a turn of its own.
  cold?.push(() => (httpPart === 'body' ? compileBodyValidator(schema) : urlValidator()));
  const validate = (data: unknown): boolean => {
    // `?limit=1&limit=2` arrives as an array: say so, rather than "must be a whole number".
    for (const name of singles) {
      const given = (data as Record<string, unknown> | null)?.[name];
      if (Array.isArray(given)) {
        validate.errors = [{ keyword: 'repeated', instancePath: `/${name}`, schemaPath: '', params: {}, message: `is given ${given.length} times; give it once` }];
        return false;
      }
    }
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
    const v = urlValidator();
    const ok = v(data);
    // An unknown top-level name carries the names the route does know, for a "did you mean".
    validate.errors = v.errors?.map((e) => (e.keyword === 'additionalProperties' && e.instancePath === '' ? { ...e, params: { ...e.params, known } } : e));
    return ok;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate;
}

/**
 * Compile the validators a route table left for its first requests, one per turn of the event
 * loop, starting `afterMs` after the call (the daemon calls it once it listens). Compiling a route's
 * schemas costs the main thread ~1-10 ms (the first one of a process, with ajv's own code still
 * cold, ~20-40 ms), which would otherwise be paid inside the first request of each route: a 1 MB
 * POST /v1/test/inbound on a fresh daemon held the main thread ~80 ms (issue #13: no message may
 * hold it for more than 50 ms). One validator per turn keeps each step short; requests are served
 * between them. Until it starts, nothing here holds the process open (the daemon's stop() ends it).
 * `done` resolves with the count compiled.
 */
export function warmValidators(cold: (() => void)[], afterMs = 1_000): { done: Promise<number>; stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  let compiledCount = 0;
  const done = new Promise<number>((resolve) => {
    const step = (): void => {
      const next = stopped ? undefined : cold.shift();
      if (!next) {
        resolve(compiledCount);
        return;
      }
      try {
        next();
        compiledCount++;
      } catch {
        // Left for the route's first request, which compiles it again and answers with the error.
      }
      // Not unref'd: libuv does not wake for an unref'd immediate, which then waits for other I/O.
      timer = setImmediate(step);
    };
    timer = setTimeout(step, afterMs).unref();
  });
  return {
    done,
    stop: () => {
      stopped = true;
      if (timer) {
        clearTimeout(timer as NodeJS.Timeout);
        clearImmediate(timer as NodeJS.Immediate);
      }
    },
  };
}

// Shared with the MCP server's argument check (src/mcp), so both name a field the same way.
export { pointerToParam };

/** Properties that take one value (no array among their types): a repeated query parameter is an error. */
function singleValuedProperties(schema: object): string[] {
  const props = (schema as { properties?: Record<string, { type?: unknown; anyOf?: { type?: unknown }[] }> }).properties ?? {};
  const arrayish = (p: { type?: unknown; anyOf?: { type?: unknown }[] }) => p.type === 'array' || (Array.isArray(p.type) && p.type.includes('array')) || !!p.anyOf?.some(arrayish);
  return Object.entries(props).filter(([, p]) => !arrayish(p)).map(([k]) => k);
}

function integerProperties(schema: object): string[] {
  const props = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(props).filter(([, p]) => p.type === 'integer').map(([k]) => k);
}

export { validationToApiError } from '../../shared/schema-check.js';
