/**
 * All time goes through a Clock so tests move time instead of sleeping
 * (caps over 60 minutes / 24 hours, schedules, expiry, retries).
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests and benchmarks. */
export class ManualClock implements Clock {
  constructor(private ms: number = Date.parse('2026-01-01T00:00:00.000Z')) {}
  now(): number {
    return this.ms;
  }
  set(at: number | string | Date): void {
    this.ms = typeof at === 'number' ? at : new Date(at).getTime();
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

// The last instant formatted: a send or an inbound message formats the same `now` a dozen times
// (its rows' and events' timestamps), and every one allocated a Date and a string.
let lastMs = NaN;
let lastIso = '';

export function isoAt(ms: number): string {
  if (ms === lastMs) return lastIso;
  const iso = new Date(ms).toISOString(); // throws RangeError on NaN or out of range, as before
  lastMs = ms;
  lastIso = iso;
  return iso;
}

export function nowIso(clock: Clock): string {
  return isoAt(clock.now());
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
