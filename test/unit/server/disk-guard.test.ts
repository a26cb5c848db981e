import { describe, expect, it } from 'vitest';
import { DiskGuard } from '../../../src/server/ops/disk-guard.js';

// current(): what check() would answer without reading the disk (the send routes' synchronous path).
describe('DiskGuard.current', () => {
  it('answers while the last read is fresh, null when check() must read again', async () => {
    let free = 10 * 1024 * 1024;
    let reads = 0;
    const guard = new DiskGuard('/nowhere', 256 * 1024 * 1024, async () => { reads++; return free; }, 50);
    expect(guard.current()).toBeNull(); // never read
    const first = await guard.check();
    expect(first).toMatchObject({ ok: false, freeBytes: free });
    expect(guard.current()).toEqual(first);
    expect(reads).toBe(1);
    free = 1024 ** 4;
    expect(guard.current()).toMatchObject({ ok: false }); // still the fresh read
    await new Promise((r) => setTimeout(r, 60));
    expect(guard.current()).toBeNull();
    expect(await guard.check()).toMatchObject({ ok: true, freeBytes: free });
    expect(guard.current()).toMatchObject({ ok: true });
    expect(reads).toBe(2);
  });

  it('is always ok, without reading, when the guard is off', () => {
    const guard = new DiskGuard('/nowhere', 0, async () => { throw new Error('not read'); });
    expect(guard.current()).toMatchObject({ ok: true, minFreeBytes: 0 });
  });
});
