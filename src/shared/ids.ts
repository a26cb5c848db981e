import { randomFillSync } from 'node:crypto';
import type { Clock } from './clock.js';

/**
 * Ids are `<prefix>_` + 10 Crockford base32 characters of creation time (ms)
 * + 16 characters of randomness, ULID-style, so ids sort by creation. Within
 * one process they are strictly increasing even inside one millisecond (the
 * random part is incremented), which lets lists page on the id alone.
 */
export type IdPrefix =
  | 'msg' | 'rcv' | 'thrd' | 'agt' | 'wsk' | 'key' | 'dft' | 'evt' | 'whe' | 'req'
  | 'whd' | 'att' | 'sup' | 'alw' | 'lbl' | 'dom' | 'log' | 'apl' | 'ovl' | 'grt' | 'wbs' | 'inq';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
// The 80 random bits are kept as two 40-bit halves in plain numbers (exact below 2^53): BigInt
// arithmetic was most of an id's cost, and every request makes a few ids.
const HALF = 2 ** 40;

let lastTime = -1;
let randHi = 0;
let randLo = 0;

/** Random bytes from a pooled buffer (one CSPRNG call per 100 ids instead of one per id). */
const pool = Buffer.alloc(1000);
let poolAt = pool.length;
function random40(): number {
  if (poolAt + 5 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const v = pool.readUIntBE(poolAt, 5);
  poolAt += 5;
  return v;
}

function encode(value: number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[value % 32] + out;
    value = Math.floor(value / 32);
  }
  return out;
}

// The time and the high random half change only when the millisecond does (or, rarely, on a
// carry out of the low half): their 18 characters are encoded once and reused until then.
let head = '';

export function monotonicPart(ms: number): string {
  let time = Math.max(0, Math.floor(ms));
  if (time <= lastTime) {
    time = lastTime;
    randLo++;
    if (randLo === HALF) {
      randLo = 0;
      randHi = (randHi + 1) % HALF;
      head = encode(time, 10) + encode(randHi, 8);
    }
  } else {
    lastTime = time;
    randHi = Math.floor(random40() / 2); // 79 random bits: headroom for increments
    randLo = random40();
    head = encode(time, 10) + encode(randHi, 8);
  }
  return head + encode(randLo, 8);
}

export function newId(prefix: IdPrefix, clock: Clock): string {
  return `${prefix}_${monotonicPart(clock.now())}`;
}

/** newId for an instant the caller already read (`ms`): its time part is never below `ms`. */
export function newIdAt(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${monotonicPart(ms)}`;
}

/**
 * The smallest id whose time part is `ms` or later: every id made at or after `ms` (newId,
 * newIdAt, idAt) is >= it, so `created_at >= since` can also bound an id-ordered index when ids
 * are never earlier than their row's created_at (events: repos/events.ts).
 */
export function idFloorAt(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${encode(Math.max(0, Math.floor(ms)), 10)}${'0'.repeat(16)}`;
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(prefix + '_');
}

/**
 * An id whose time part is exactly `ms` (and a random rest): for ids ordered by a clock shared
 * by several processes (event ids on PostgreSQL), where the caller guarantees `ms` increases.
 */
export function idAt(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${encode(Math.max(0, Math.floor(ms)), 10)}${encode(random40(), 8)}${encode(random40(), 8)}`;
}
