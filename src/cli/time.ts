import { UsageError } from './errors.js';

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/**
 * The one time parser behind every time flag (`send --at`, `drafts create --at`,
 * `drafts send --at`, `messages reschedule --at`, `keys create --expires-at`, `--since` of events,
 * wait and webhooks listen):
 * - ISO 8601 with or without seconds/milliseconds; without an offset it is UTC (as the API reads it);
 * - a plain date `YYYY-MM-DD` (midnight UTC);
 * - `+N<unit>` from now (`+30m`, `+2h`, `+1d`; units s, m, h, d, w) and `-N<unit>` before now (`-1h`).
 * Returns the ISO 8601 UTC string the API takes; a bad value is a usage error naming the flag.
 */
export function parseTime(flag: string, v: string, now = Date.now()): string {
  const s = v.trim();
  const rel = /^([+-])(\d+)\s*([smhdw])$/i.exec(s);
  if (rel) return new Date(now + (rel[1] === '-' ? -1 : 1) * Number(rel[2]) * UNITS[rel[3].toLowerCase()]).toISOString();
  const iso = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?\s*([zZ]|[+-]\d{2}:?\d{2})?$/.exec(s);
  if (iso) {
    const zoned = iso[4] ? s : iso[1] ? s + 'Z' : s + 'T00:00:00Z';
    const t = Date.parse(zoned.replace(' ', 'T'));
    if (Number.isFinite(t)) return new Date(t).toISOString();
  }
  throw new UsageError(`${flag} "${v}" is not a time: use ISO 8601 (2026-05-01T09:00:00Z; UTC without an offset), a date (2026-05-01), or +30m / +2h / +1d from now (-1h for the past)`);
}

/** Help text shared by the time flags. */
export const TIME_HELP = 'ISO 8601 (UTC unless an offset is given), YYYY-MM-DD, or +30m / +2h / +1d';
