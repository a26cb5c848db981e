import { describe, expect, it } from 'vitest';
import { parseReturnPath, returnPathAddress, verifyReturnPath } from '../../../src/mail/return-path.js';

const key = { id: 'a', secret: Buffer.alloc(32, 7) };
const MSG = 'msg_01jabcdefghjkmnpqrstvwxyz0';
const RCPTS = ['ann@example.org', 'Ben@Example.org'];

describe('signed return paths (mail/return-path.ts)', () => {
  it('fits a local part (≤ 64 octets), uses only lower-case base32, and names the message', () => {
    const a = returnPathAddress(key, MSG, 'ann@example.org', 'Mail.Example.COM');
    expect(a).toMatch(/^bounces\+a01jabcdefghjkmnpqrstvwxyz0[0-9a-hjkmnp-tv-z]{20}@mail\.example\.com$/);
    expect(a.split('@')[0].length).toBe(55);
  });

  it('verifies for the recipient it was made for, in any case, and for no other', () => {
    const a = returnPathAddress(key, MSG, 'ann@example.org', 'example.com');
    const b = returnPathAddress(key, MSG, 'ben@example.org', 'example.com');
    expect(verifyReturnPath(parseReturnPath(a)!, key.secret, RCPTS)).toBe('ann@example.org');
    expect(verifyReturnPath(parseReturnPath(a.toUpperCase())!, key.secret, RCPTS)).toBe('ann@example.org');
    expect(verifyReturnPath(parseReturnPath(b)!, key.secret, RCPTS)).toBe('ben@example.org');
    expect(verifyReturnPath(parseReturnPath(a)!, key.secret, ['ben@example.org'])).toBeNull();
    expect(verifyReturnPath(parseReturnPath(a)!, Buffer.alloc(32, 8), RCPTS)).toBeNull();
  });

  it('a changed character anywhere in the token fails', () => {
    const a = returnPathAddress(key, MSG, 'ann@example.org', 'example.com');
    const local = a.split('@')[0];
    for (let i = 'bounces+'.length + 1; i < local.length; i++) {
      const c = local[i] === '2' ? '3' : '2';
      const t = parseReturnPath(`${local.slice(0, i)}${c}${local.slice(i + 1)}@example.com`);
      expect(t && verifyReturnPath(t, key.secret, RCPTS)).toBeFalsy();
    }
  });

  it('parses only the return-path shape', () => {
    expect(parseReturnPath('agent@example.com')).toBeNull();
    expect(parseReturnPath('bounces@example.com')).toBeNull();
    expect(parseReturnPath('bounces+short@example.com')).toBeNull();
    expect(parseReturnPath(`bounces+a${'0'.repeat(26)}${'u'.repeat(20)}@example.com`)).toBeNull();
    expect(parseReturnPath(`bounces+a${'0'.repeat(46)}@example.com`)).toMatchObject({ keyId: 'a', messageId: `msg_${'0'.repeat(26)}` });
  });
});
