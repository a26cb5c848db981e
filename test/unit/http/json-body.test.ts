import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds, jsonLimitExceeded, MAX_JSON_ITEMS, parseJsonBody } from '../../../src/server/http/json-body.js';
import { ApiError } from '../../../src/contract/errors.js';

/** The reference: a character-by-character scan (what jsonDepthExceeds computes, by definition). */
function reference(text: string, max: number): number | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (++depth > max) return i;
    } else if (c === ']' || c === '}') depth--;
  }
  return null;
}

describe('server/http/json-body: depth before JSON.parse', () => {
  it('counts brackets outside strings only, with escaped quotes and backslash runs', () => {
    expect(jsonDepthExceeds('[[[1]]]', 3)).toBeNull();
    expect(jsonDepthExceeds('[[[[1]]]]', 3)).toBe(3);
    // Brackets inside a string, after an escaped quote, and after an escaped backslash.
    expect(jsonDepthExceeds(JSON.stringify({ a: '[[[[[', b: 'x\\"[[[[', c: 'y\\\\' }), 1)).toBeNull();
    expect(jsonDepthExceeds('{"a":"\\\\"}', 1)).toBeNull();
    expect(jsonDepthExceeds('{"a":"\\\\",  "b":[[1]]}', 2)).toBe(17);
    expect(jsonDepthExceeds('{"a":"\\"[[[[', 1)).toBeNull(); // unterminated: JSON.parse's to refuse
  });

  it('agrees with a character-by-character scan on generated texts', () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
    const alphabet = ['[', ']', '{', '}', '"', '\\', 'a', ',', ':', ' '];
    for (let k = 0; k < 3000; k++) {
      const text = Array.from({ length: 1 + rnd(40) }, () => alphabet[rnd(alphabet.length)]).join('');
      for (const max of [0, 1, 2, 4]) expect(jsonDepthExceeds(text, max), `${text} ${max}`).toBe(reference(text, max));
    }
  });

  it('refuses a body nested past the limit with the envelope, and parses a 1 MB string body', () => {
    expect(() => parseJsonBody('['.repeat(70) + ']'.repeat(70))).toThrow(ApiError);
    const big = JSON.stringify({ body_html: '<div>"[{'.repeat(125_000) });
    expect((parseJsonBody(big) as { body_html: string }).body_html.length).toBe(1_000_000);
  });

  it('counts items (commas) outside strings, and refuses a body past MAX_JSON_ITEMS before JSON.parse', () => {
    expect(jsonLimitExceeded('[1,2,3]', 64, 1)).toEqual({ limit: 'items', at: 4 }); // the second comma
    expect(jsonLimitExceeded('[1,2,3]', 64, 2)).toBeNull();
    expect(jsonLimitExceeded(JSON.stringify({ a: ',,,,,', b: 'x\\",,,' }), 64, 1)).toBeNull();
    expect(jsonLimitExceeded('[[[1,2]]]', 2, 0)).toEqual({ limit: 'depth', at: 2 }); // the first limit reached
    const members = (n: number) => JSON.stringify({ agent: 'a', metadata: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v'])) });
    expect(() => parseJsonBody(members(MAX_JSON_ITEMS - 1))).not.toThrow();
    let refused: ApiError | null = null;
    try {
      parseJsonBody(members(1_000_000));
    } catch (err) {
      refused = err as ApiError;
    }
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused!.code).toBe('invalid_field');
    expect(refused!.message).toContain('more than 50,000 array items and object members');
  });
});
