import type { AppContext } from './context.js';
import { MINUTE } from '../shared/clock.js';

/**
 * Failed authentication per source address (issue #10, "Also"). Keys are 128-bit, so guessing is
 * not the risk; noise is: a burst is logged at warn level with the address, once per window, and
 * each failure past the free allowance waits a little longer before its 401, so a script
 * hammering the API with a bad key slows itself down without affecting anyone else.
 */
export const AUTH_FAILURE_LIMITS = {
  /** The window failures are counted in. */
  windowMs: MINUTE,
  /** Failures per window before the burst is logged and the delay starts. */
  freeFailures: 10,
  /** Added per failure past freeFailures. */
  stepMs: 50,
  /** Longest delay of one 401. */
  maxDelayMs: 1000,
  /** Addresses remembered at once (oldest forgotten first), so the table itself is bounded. */
  maxAddresses: 10_000,
};

interface Tally {
  since: number;
  count: number;
  warned: boolean;
}

const tallies = new WeakMap<AppContext, Map<string, Tally>>();

/** Record one failed authentication from `address`; resolves with the delay to apply (ms). */
export function noteAuthFailure(ctx: AppContext, address: string, code: string): number {
  // No credential at all is a client not yet configured, not an attempt: neither counted nor slowed.
  if (code === 'missing_authorization') return 0;
  const L = AUTH_FAILURE_LIMITS;
  const now = ctx.clock.now();
  let map = tallies.get(ctx);
  if (!map) tallies.set(ctx, (map = new Map()));
  let t = map.get(address);
  if (!t || now - t.since >= L.windowMs) {
    map.delete(address); // re-inserted last: Map order is then least recently started first
    t = { since: now, count: 0, warned: false };
    if (map.size >= L.maxAddresses) map.delete(map.keys().next().value!);
    map.set(address, t);
  }
  t.count++;
  if (t.count <= L.freeFailures) return 0;
  const delayMs = Math.min(L.maxDelayMs, (t.count - L.freeFailures) * L.stepMs);
  if (!t.warned) {
    t.warned = true;
    ctx.log.warn({ address, failures: t.count, window_s: L.windowMs / 1000, last_code: code, delay_ms: delayMs },
      `authentication failures: ${t.count} from ${address} within ${L.windowMs / 1000} s; further failures from it are slowed`);
  }
  return delayMs;
}
