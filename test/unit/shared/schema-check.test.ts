import { describe, expect, it } from 'vitest';
import { checkBody, validateBody } from '../../../src/shared/schema-check.js';
import { SendRequest } from '../../../src/contract/messages.js';
import { ApiError } from '../../../src/contract/errors.js';

/** The refusal checkBody throws for a send body (the HTTP layer answers the same). */
function refusal(body: unknown): { code: string; param: string | null; message: string } {
  try {
    checkBody(SendRequest, body);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e.status).toBe(400);
    return { code: e.code, param: e.param ?? null, message: e.message };
  }
  throw new Error(`accepted: ${JSON.stringify(body).slice(0, 100)}`);
}

describe('shared/schema-check: the contract schema as the one validator of a send body', () => {
  it('accepts a valid body, with unknown fields, and a string or array `to`', () => {
    expect(validateBody(SendRequest, { to: 'a@x.com', subject: 's', body_text: 'b', whatever: 1 })).toBeNull();
    expect(validateBody(SendRequest, { to: ['a@x.com', 'b@x.com'], metadata: { k: 'v' }, references: ['<a@b>'] })).toBeNull();
  });

  it('names the field and says what is allowed: sizes from the value, not ajv wording', () => {
    expect(refusal({ to: Array.from({ length: 51 }, (_, i) => `u${i}@x.com`) })).toEqual({
      code: 'invalid_param_value', param: 'to', message: 'The field `to` has 51 items; at most 50 are allowed.',
    });
    expect(refusal({ subject: 'x'.repeat(999) })).toEqual({
      code: 'invalid_param_value', param: 'subject', message: 'The field `subject` is 999 characters long; at most 998 are allowed.',
    });
    expect(refusal({ subject: 5 })).toMatchObject({ param: 'subject', message: 'The field `subject` must be a string.' });
    expect(refusal({ agent: '' })).toMatchObject({ param: 'agent', message: 'The field `agent` must not be empty.' });
    expect(refusal({ pool_hint: 'dirty' })).toMatchObject({ param: 'pool_hint', message: 'The field `pool_hint` must be one of: clean, mixed.' });
  });

  it('a union refused on type says which types it takes', () => {
    expect(refusal({ cc: 7 })).toEqual({ code: 'invalid_param_value', param: 'cc', message: 'The field `cc` must be a string or an array.' });
    // An array of the right type but a bad item: the item is named.
    expect(refusal({ to: ['a@x.com', 3] })).toMatchObject({ param: 'to[1]', message: 'The field `to[1]` must be a string.' });
  });

  it("quotes the schema's errorMessage where ajv would quote a pattern", () => {
    expect(refusal({ attachments: [{ filename: 'a.txt', content_base64: '***' }] })).toEqual({
      code: 'invalid_param_value', param: 'attachments[0].content_base64', message: 'The field `attachments[0].content_base64` is not base64.',
    });
    expect(refusal({ attachments: [{ filename: 'a.txt', content: 'aGk=', content_type: 'pdf' }] })).toMatchObject({
      param: 'attachments[0].content_type', message: 'The field `attachments[0].content_type` is not a MIME type such as application/pdf.',
    });
    expect(refusal({ references: ['<ok@x>', 'two words'] })).toMatchObject({ param: 'references[1]' });
    expect(refusal({ scheduled_at: 'tomorrow' })).toMatchObject({
      param: 'scheduled_at', message: 'The field `scheduled_at` must be an ISO 8601 timestamp with a time zone, e.g. 2026-05-01T09:00:00Z.',
    });
  });

  it('metadata keys and values: the key is named', () => {
    const long = 'k'.repeat(65);
    expect(refusal({ metadata: { [long]: 'v' } })).toMatchObject({ code: 'invalid_param_value', param: `metadata.${long}` });
    expect(refusal({ metadata: { [long]: 'v' } }).message).toContain('metadata keys must be 1 to 64 characters long');
    expect(refusal({ metadata: { k: 'v'.repeat(501) } })).toEqual({
      code: 'invalid_param_value', param: 'metadata.k', message: 'The field `metadata.k` is 501 characters long; at most 500 are allowed.',
    });
    expect(refusal({ metadata: { k: 1 } })).toMatchObject({ param: 'metadata.k', message: 'The field `metadata.k` must be a string.' });
  });

  it('missing required and wrong body shape keep their codes', () => {
    expect(refusal({ tags: [{ name: 'n' }] })).toMatchObject({ code: 'missing_field', param: 'tags[0].value' });
    expect(refusal([1, 2])).toMatchObject({ code: 'invalid_field', param: 'body' });
    expect(refusal('text')).toMatchObject({ code: 'invalid_field', param: 'body' });
  });

  it('a body that passed once is not walked again for the same schema, and is for another', () => {
    const body = { to: 'a@x.com' };
    expect(validateBody(SendRequest, body)).toBeNull();
    // Changing the body after it passed is not noticed by checkBody (the caller's contract: a
    // validated request body is not edited before the service reads it)...
    (body as Record<string, unknown>).subject = 5;
    expect(() => checkBody(SendRequest, body)).not.toThrow();
    // ...but a new object is checked.
    expect(() => checkBody(SendRequest, { ...body })).toThrow(ApiError);
  });
});

describe('shared/schema-check: the contract against the JSON Schema meta-schema', () => {
  // The validators do not check a schema against the meta-schema when they compile it (that
  // compiles the meta-schema itself: tens of ms of the main thread on a route's first request,
  // shared/schema-check.ts makeAjv). This test is that check, for every schema of the contract.
  it('every schema a route names, and every schema the contract exports, is a valid JSON schema', async () => {
    const { Ajv } = await import('ajv');
    const contract = await import('../../../src/contract/index.js');
    const meta = new Ajv({ strict: false });
    const schemas = new Map<string, unknown>();
    for (const [id, r] of Object.entries(contract.routes) as [string, import('../../../src/contract/route.js').RouteDef][]) {
      for (const part of ['params', 'query', 'body', 'response'] as const) if (r[part]) schemas.set(`${id}.${part}`, r[part]);
    }
    for (const [name, value] of Object.entries(contract)) {
      if (value && typeof value === 'object' && ('type' in value || 'anyOf' in value || 'allOf' in value || 'oneOf' in value)) schemas.set(name, value);
    }
    expect(schemas.size).toBeGreaterThan(100);
    const invalid = [...schemas].flatMap(([name, s]) => (meta.validateSchema(JSON.parse(JSON.stringify(s))) ? [] : [`${name}: ${meta.errorsText()}`]));
    expect(invalid).toEqual([]);
    // The check can fail: a schema with a wrong keyword type is refused.
    expect(meta.validateSchema({ type: 'object', properties: { a: { type: 'string', maxLength: 'ten' } } })).toBe(false);
  });
});
