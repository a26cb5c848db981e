import { describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { LIFT_MIN_CHARS, NOT_BASE64, itemAt, liftAttachments } from '../../../src/server/http/body-lift.js';
import { BodyBudget, BodyReservation } from '../../../src/server/http/body-worker.js';
import { checkBody } from '../../../src/shared/schema-check.js';
import { SendRequest } from '../../../src/contract/messages.js';
import { ApiError } from '../../../src/contract/errors.js';

const b64 = (n: number) => randomBytes(n).toString('base64');
const big = () => LIFT_MIN_CHARS; // bytes whose base64 is over the threshold

describe('liftAttachments (the body worker, server/http/body-lift.ts)', () => {
  it('decodes each large base64 string of a send, a batch array and {messages}, leaving small ones and other fields alone', () => {
    const raw = randomBytes(big());
    const send = { to: 'a@example.com', attachments: [{ filename: 'a', content_base64: raw.toString('base64') }, { filename: 's', content_base64: 'aGk=' }] };
    const lifted = liftAttachments(send, false);
    expect(lifted).toHaveLength(1);
    expect(lifted[0].path).toEqual(['attachments', 0]);
    expect(lifted[0].field).toBe('content_base64');
    expect(Buffer.from(lifted[0].bytes).equals(raw)).toBe(true);
    expect(send.attachments[0].content_base64).toBe('');
    expect(send.attachments[1].content_base64).toBe('aGk=');
    expect(itemAt(send, lifted[0].path)).toBe(send.attachments[0]);

    const batch = [{ attachments: [{ filename: 'x', content: b64(big()) }] }, { to: 'b@example.com' }];
    expect(liftAttachments(batch, false).map((l) => [l.path, l.field])).toEqual([[[0, 'attachments', 0], 'content']]);
    const wrapped = { messages: [{}, { attachments: [{ filename: 'y', content_base64: b64(big()) }] }] };
    expect(liftAttachments(wrapped, false).map((l) => l.path)).toEqual([['messages', 1, 'attachments', 0]]);
  });

  it('the stand-ins pass the contract schema; not-base64 fails it with the same message as the whole string', () => {
    const s = b64(big());
    const withDigest = { attachments: [{ filename: 'a', content_base64: s }] };
    liftAttachments(withDigest, true);
    expect(withDigest.attachments[0].content_base64).toBe(createHash('sha256').update(s).digest('hex'));
    expect(() => checkBody(SendRequest, withDigest)).not.toThrow();

    const whole = { attachments: [{ filename: 'a', content_base64: 'A'.repeat(LIFT_MIN_CHARS) + '%' }] };
    const lifted = structuredClone(whole);
    expect(liftAttachments(lifted, false)).toEqual([]);
    expect(lifted.attachments[0].content_base64).toBe(NOT_BASE64);
    const refusal = (v: unknown) => {
      try {
        checkBody(SendRequest, v);
      } catch (err) {
        return { code: (err as ApiError).code, param: (err as ApiError).param, message: (err as ApiError).message };
      }
      return null;
    };
    expect(refusal(lifted)).toEqual(refusal(whole));
    expect(refusal(lifted)?.param).toBe('attachments[0].content_base64');
  });

  it('base64 with line breaks and padding decodes as Buffer.from does', () => {
    const raw = randomBytes(big() + 1);
    const s = raw.toString('base64').replace(/(.{76})/g, '$1\r\n');
    const body = { attachments: [{ filename: 'a', content_base64: s }] };
    const [l] = liftAttachments(body, false);
    expect(Buffer.from(l.bytes).equals(raw)).toBe(true);
  });
});

describe('BodyReservation (httpMaxBufferedBodyBytes)', () => {
  it('one body alone always passes; others wait for the bytes held to come back', () => {
    const budget = new BodyBudget(100);
    const a = new BodyReservation(budget);
    expect(a.take(150)).toBe(true); // alone, over the budget
    const b = new BodyReservation(budget);
    expect(b.take(1)).toBe(false);
    a.release();
    a.release(); // once only
    expect(budget.used).toBe(0);
    expect(b.take(60)).toBe(true);
    expect(b.take(40)).toBe(true); // exactly the budget
    const c = new BodyReservation(budget);
    expect(c.take(1)).toBe(false);
    b.release();
    expect(c.take(100)).toBe(true);
    c.release();
    expect(budget.used).toBe(0);
  });
});
