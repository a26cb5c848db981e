import { randomBytes } from 'node:crypto';
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
const RANDOM_BITS = 80n;
const RANDOM_MASK = (1n << RANDOM_BITS) - 1n;

let lastTime = -1;
let lastRandom = 0n;

function encode(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

export function monotonicPart(ms: number): string {
  let time = Math.max(0, Math.floor(ms));
  if (time <= lastTime) {
    time = lastTime;
    lastRandom = (lastRandom + 1n) & RANDOM_MASK;
  } else {
    lastTime = time;
    lastRandom = BigInt('0x' + randomBytes(10).toString('hex')) >> 1n; // leave headroom for increments
  }
  return encode(BigInt(time), 10) + encode(lastRandom, 16);
}

export function newId(prefix: IdPrefix, clock: Clock): string {
  return `${prefix}_${monotonicPart(clock.now())}`;
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(prefix + '_');
}

/**
 * An id whose time part is exactly `ms` (and a random rest): for ids ordered by a clock shared
 * by several processes (event ids on PostgreSQL), where the caller guarantees `ms` increases.
 */
export function idAt(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${encode(BigInt(Math.max(0, Math.floor(ms))), 10)}${encode(BigInt('0x' + randomBytes(10).toString('hex')), 16)}`;
}
