import type { Event, EventListQuery } from '../contract/events.js';
import { EVENT_TYPES } from '../contract/events.js';
import type { PageOf } from '../contract/common.js';
import { getEvent, listEvents } from '../db/repos/events.js';
import { Errors } from '../shared/errors.js';
import { hasPrefix } from '../shared/ids.js';
import { inboundSettled, type AppContext, type AuthContext } from './context.js';
import { resolveAgent } from './agents.js';
import { pageOf } from '../db/paginate.js';

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
// Extended ISO 8601 date-time; seconds and the fraction optional; offset Z, ±hh:mm, ±hhmm or ±hh.
// A space where the `+` of an offset should be is read as `+`: an unencoded `+` in a query
// string arrives as a space (application/x-www-form-urlencoded).
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+\- ])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * Spec: Events → `since`: an ISO 8601 time with or without offset (none means UTC), seconds and
 * milliseconds optional, or a plain date (midnight UTC). Returns the instant in ms, or null when
 * the text is none of those (including impossible dates such as 2026-02-30 or 24:00).
 */
export function parseSince(text: string): number | null {
  const s = text.trim();
  let m = DATE_ONLY.exec(s);
  if (m) return utc(+m[1], +m[2], +m[3], 0, 0, 0, 0);
  m = DATE_TIME.exec(s);
  if (!m) return null;
  const ms = m[7] ? Math.floor(Number(m[7].padEnd(3, '0').slice(0, 3))) : 0;
  const local = utc(+m[1], +m[2], +m[3], +m[4], +m[5], m[6] ? +m[6] : 0, ms);
  if (local === null) return null;
  if (!m[9]) return local; // Z, or no offset at all: UTC
  const oh = +m[10];
  const om = m[11] ? +m[11] : 0;
  if (oh > 23 || om > 59) return null;
  const sign = m[9] === '-' ? -1 : 1;
  return local - sign * (oh * 60 + om) * 60_000;
}

function utc(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number | null {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // setUTCFullYear keeps years 0–99 literal (Date.UTC does not)
  date.setUTCHours(h, mi, s, ms);
  if (date.getUTCDate() !== d || date.getUTCMonth() !== mo - 1) return null;
  return date.getTime();
}

/** `since` as the ISO text events are compared with, or 400 invalid_param_value (param since). */
export function sinceToIso(text: string, param = 'since'): string {
  const at = parseSince(text);
  if (at === null) {
    throw Errors.invalidParam(param, `"${text}" is not a time: use ISO 8601 (2026-01-31T09:30:00Z, 2026-01-31T09:30+02:00, 2026-01-31T09:30 = UTC) or a date (2026-01-31 = midnight UTC).`);
  }
  return new Date(at).toISOString();
}

export function checkEventType(type: string, param: string): string {
  if (!(EVENT_TYPES as readonly string[]).includes(type)) {
    throw Errors.invalidParam(param, `"${type}" is not an event type; known types: ${EVENT_TYPES.join(', ')}.`);
  }
  return type;
}

/**
 * An event-type filter as the list (`event_type`) and the stream (`event_types`) both take it:
 * one type, a comma-separated list, or the parameter repeated (fastify gives an array). Each
 * type is checked (400 naming `param`); `*` means every type; null means no filter.
 */
export function eventTypesParam(value: string | string[] | undefined, param: string): string[] | null {
  const raw = value === undefined ? [] : Array.isArray(value) ? value : [value];
  const list = raw.flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean);
  if (!list.length || list.includes('*')) return null;
  return [...new Set(list.map((t) => checkEventType(t, param)))];
}

/** Which agent's events a caller sees: a bound key its own agent only; `agent_id` narrows further. */
export async function agentScope(ctx: AppContext, auth: AuthContext, ref: string | undefined, param = 'agent_id'): Promise<string | null> {
  if (ref !== undefined && ref.trim() !== '') return (await resolveAgent(ctx, auth, ref, 'filter', param)).id;
  return auth.agentId;
}

export async function listEventsPage(ctx: AppContext, auth: AuthContext, q: EventListQuery): Promise<PageOf<Event>> {
  await inboundSettled(ctx);
  const types = eventTypesParam(q.event_type, 'event_type');
  const since = q.since !== undefined ? sinceToIso(q.since) : null;
  const agentId = await agentScope(ctx, auth, q.agent_id);
  const res = await listEvents(ctx.db, auth.workspaceId, { agentId, types, since }, q);
  return pageOf(res, res.rows);
}

/** One event; another agent's event is 404 to a bound key (spec: Agent-bound keys). */
export async function getEventById(ctx: AppContext, auth: AuthContext, id: string): Promise<Event> {
  const ev = hasPrefix(id, 'evt') ? await getEvent(ctx.db, auth.workspaceId, id) : undefined;
  if (!ev || (auth.agentId && ev.agent_id !== auth.agentId)) throw Errors.notFound('event', id);
  return ev;
}
