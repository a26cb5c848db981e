import { describe, expect, it } from 'vitest';
import { WindowLogs } from '../../../src/services/window-logs.js';

// The in-memory rate limits' per-key logs (send burst per key, public routes per address) are
// capped (docs/security.md → In-memory caches): a flood of new keys cannot grow them without bound.
describe('WindowLogs', () => {
  it('keeps the times within the window and counts what the caller pushes', () => {
    const w = new WindowLogs(1000, 100);
    w.take('a', 0).push(0);
    w.take('a', 500).push(500);
    expect(w.take('a', 900)).toEqual([0, 500]);
    expect(w.take('a', 1200)).toEqual([500]); // 0 left the window
  });

  it('at its cap drops the keys whose times left the window first, then the least recently used', () => {
    const w = new WindowLogs(1000, 100);
    for (let i = 0; i < 50; i++) w.take(`old${i}`, 0).push(0); // all out of the window by t=5000
    for (let i = 0; i < 50; i++) w.take(`live${i}`, 4500 + i).push(4500 + i);
    expect(w.size).toBe(100);
    w.take('new', 5000).push(5000);
    // The 50 expired keys went; every live key kept its count.
    expect(w.size).toBe(51);
    for (let i = 0; i < 50; i++) expect(w.take(`live${i}`, 5000)).toHaveLength(1);

    // All live: the least recently used go, down to 90 % of the cap, and the size never passes it.
    const full = new WindowLogs(60_000, 100);
    for (let i = 0; i < 1000; i++) {
      full.take(`k${i}`, i).push(i);
      expect(full.size).toBeLessThanOrEqual(100);
    }
    expect(full.take('k999', 1000)).toEqual([999]); // the most recent kept
    expect(full.take('k0', 1000)).toEqual([]); // the first ones dropped (a fresh count)
  });
});
