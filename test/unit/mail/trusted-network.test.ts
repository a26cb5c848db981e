import { describe, expect, it } from 'vitest';
import { DEFAULT_TRUSTED_NETWORKS, trustedNetworkOf } from '../../../src/mail/auth.js';

// mail/auth.ts trustedNetworkOf: answers are kept per network list and address, so asking again
// (every message of a connection asks) gives the same answer without parsing again.
describe('trustedNetworkOf', () => {
  it('answers per network list: the same address is trusted by one list and not by another, every time', () => {
    const office = ['10.0.0.0/8', '192.168.1.0/24'] as const;
    for (let i = 0; i < 3; i++) {
      expect(trustedNetworkOf('127.0.0.1', DEFAULT_TRUSTED_NETWORKS)).toBe('127.0.0.0/8');
      expect(trustedNetworkOf('::ffff:127.0.0.1', DEFAULT_TRUSTED_NETWORKS)).toBe('127.0.0.0/8');
      expect(trustedNetworkOf('::1', DEFAULT_TRUSTED_NETWORKS)).toBe('::1/128');
      expect(trustedNetworkOf('10.1.2.3', DEFAULT_TRUSTED_NETWORKS)).toBeNull();
      expect(trustedNetworkOf('10.1.2.3', office)).toBe('10.0.0.0/8');
      expect(trustedNetworkOf('192.168.1.7', office)).toBe('192.168.1.0/24');
      expect(trustedNetworkOf('127.0.0.1', office)).toBeNull();
      expect(trustedNetworkOf('not an address', office)).toBeNull();
      expect(trustedNetworkOf(null, office)).toBeNull();
    }
  });

  it('keeps a bounded number of answers: many addresses still get right answers', () => {
    const list = ['10.0.0.0/16'];
    for (let i = 0; i < 2_500; i++) {
      const ip = `10.${i % 2 ? 0 : 1}.${(i >> 8) & 255}.${i & 255}`;
      expect(trustedNetworkOf(ip, list)).toBe(i % 2 ? '10.0.0.0/16' : null);
    }
  });
});
