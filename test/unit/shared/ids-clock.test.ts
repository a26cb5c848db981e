import { describe, expect, it } from 'vitest';
import { newId, hasPrefix, monotonicPart } from '../../../src/shared/ids.js';
import { ManualClock, isoAt, nowIso, DAY, HOUR, MINUTE, SECOND } from '../../../src/shared/clock.js';

// DESIGN.md "Data": ids sort by creation; time goes through the clock.
describe('ids', () => {
  it('prefix + 26 lower-case base32 characters', () => {
    const id = newId('agt', new ManualClock());
    expect(id).toMatch(/^agt_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(hasPrefix(id, 'agt')).toBe(true);
    expect(hasPrefix(id, 'key')).toBe(false);
    expect(hasPrefix('agtx_1', 'agt')).toBe(false);
  });

  it('sort by creation time, and strictly increase inside one millisecond', () => {
    const clock = new ManualClock(Date.parse('2030-01-01T00:00:00Z'));
    const ids: string[] = [];
    for (let i = 0; i < 2000; i++) ids.push(newId('key', clock));
    clock.advance(1);
    for (let i = 0; i < 10; i++) {
      ids.push(newId('key', clock));
      clock.advance(SECOND);
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('never go backwards when the clock does', () => {
    const clock = new ManualClock(Date.parse('2031-01-01T00:00:00Z'));
    const a = newId('evt', clock);
    clock.advance(-HOUR);
    const b = newId('evt', clock);
    expect(b > a).toBe(true);
  });

  it('encode the time in the first 10 characters', () => {
    const a = monotonicPart(Date.parse('2032-01-01T00:00:00Z'));
    const b = monotonicPart(Date.parse('2032-01-02T00:00:00Z'));
    expect(a.length).toBe(26);
    expect(b.slice(0, 10) > a.slice(0, 10)).toBe(true);
  });
});

describe('ManualClock', () => {
  it('moves only when told', () => {
    const c = new ManualClock(0);
    expect(c.now()).toBe(0);
    c.advance(DAY + HOUR + MINUTE);
    expect(isoAt(c.now())).toBe('1970-01-02T01:01:00.000Z');
    c.set('2026-05-01T12:00:00Z');
    expect(nowIso(c)).toBe('2026-05-01T12:00:00.000Z');
    c.set(new Date(5));
    expect(c.now()).toBe(5);
  });
});

describe('isoAt', () => {
  it('formats each instant as Date does, the same instant again and alternating ones included', () => {
    const at = [0, 0, 1, 1, 0, 1_764_300_000_123, 1_764_300_000_123, 1_764_300_000_124, -1, 1.5, 1.7, 8.64e15];
    for (const ms of at) expect(isoAt(ms)).toBe(new Date(ms).toISOString());
    expect(() => isoAt(NaN)).toThrow(RangeError);
    expect(() => isoAt(8.64e15 + 1)).toThrow(RangeError);
    expect(isoAt(8.64e15)).toBe('+275760-09-13T00:00:00.000Z');
  });
});
