import { isRestrictive, type MessageSearch, type SearchTerm } from '../db/repos/search.js';
import { catchUpSearchIndex, hasPendingSearch, indexSearchBatch, SEARCH_INDEX_BATCH } from '../db/search-index.js';
import { Errors } from '../shared/errors.js';
import type { AppContext } from './context.js';

/**
 * The `q` search syntax of GET /v1/messages/received, /v1/messages and /v1/threads
 * (docs/web.md#search), parsed into data the repositories turn into SQL:
 *
 *   words and "quoted phrases"      every one must match (from, to, subject or body); a bare word
 *                                   also matches as a prefix
 *   -word, -"phrase", -from:x       must not match (needs at least one positive text term)
 *   from:x  to:x  subject:x         the term must match that field (x may be "quoted")
 *   has:attachment                  has at least one attachment
 *   is:quarantined  is:unread  is:read
 *   intent:x                        classifier intent (several: any of them)
 *   before:DATE  after:DATE         YYYY-MM-DD (UTC midnight) or an ISO 8601 timestamp;
 *                                   before is exclusive, after inclusive
 *
 * A `word:` that is not a filter name is plain text ("Re: hello" searches for re and hello).
 */

/** Caps: `q` is at most 500 characters (schema) and 32 terms, so a query stays cheap to plan. */
export const MAX_SEARCH_TERMS = 32;

const FIELDS: Record<string, SearchTerm['field']> = { from: 'sender', to: 'recipients', cc: 'recipients', subject: 'subject' };
const FILTERS = new Set(['has', 'is', 'intent', 'before', 'after']);
const TOKEN = /(-?)(?:([A-Za-z_]+):)?(?:"([^"]*)"?|(\S+))/g;
const HAS_WORD = /[\p{L}\p{N}]/u;

function bad(message: string): never {
  throw Errors.invalidParam('q', message);
}

function parseDate(name: string, value: string): string {
  const day = /^(\d{4})-(\d{2})-(\d{2})(T|$)/.exec(value);
  const ms = !day ? NaN : day[4] ? Date.parse(value) : Date.parse(`${value}T00:00:00.000Z`);
  if (!Number.isFinite(ms)) bad(`${name}:${value} is not a date; write ${name}:YYYY-MM-DD or an ISO 8601 timestamp.`);
  // Date.parse rolls an impossible day over (2026-02-30 is read as March 2): refuse it instead.
  const [y, m, d] = [Number(day![1]), Number(day![2]), Number(day![3])];
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  if (d < 1 || d > last) bad(`${name}:${value} is not a date: ${day![1]}-${day![2]} has ${last} days; write ${name}:YYYY-MM-DD.`);
  return new Date(ms).toISOString();
}

export function parseSearch(q: string): MessageSearch {
  const s: MessageSearch = { terms: [], intents: [] };
  let count = 0;
  let excluded = false;
  for (const m of q.matchAll(TOKEN)) {
    const [, minus, rawName, quoted, bare] = m;
    const negated = minus === '-';
    excluded ||= negated || (!rawName && /^-/.test(bare ?? ''));
    const name = rawName?.toLowerCase();
    const value = quoted ?? bare ?? '';
    const dangling = !rawName && /^([A-Za-z]+):$/.exec(value)?.[1].toLowerCase();
    if (dangling && (dangling in FIELDS || FILTERS.has(dangling))) bad(`${dangling}: needs a value, e.g. ${dangling}:alice or ${dangling}:"two words".`);
    if (++count > MAX_SEARCH_TERMS) bad(`The search has more than ${MAX_SEARCH_TERMS} terms; narrow it down.`);
    if (name && name in FIELDS) {
      if (!value) bad(`${name}: needs a value, e.g. ${name}:alice or ${name}:"two words".`);
      if (HAS_WORD.test(value)) s.terms.push({ field: FIELDS[name], text: value, phrase: quoted !== undefined, negated });
      continue;
    }
    switch (name) {
      case 'has':
        if (!/^attachments?$/i.test(value)) bad(`has:${value} is not a filter; the one there is has:attachment.`);
        s.hasAttachment = !negated;
        continue;
      case 'is': {
        const v = value.toLowerCase();
        if (v === 'quarantined') s.quarantined = !negated;
        else if (v === 'unread') s.read = negated;
        else if (v === 'read') s.read = !negated;
        else bad(`is:${value} is not a filter; use is:quarantined, is:unread or is:read.`);
        continue;
      }
      case 'intent':
        if (!value || negated) bad('intent: takes one intent name (several intent: terms match any of them), e.g. intent:verification_code.');
        s.intents.push(value.toLowerCase());
        continue;
      case 'before':
      case 'after':
        if (negated) bad(`-${name}: is not supported; use ${name === 'before' ? 'after' : 'before'}: instead.`);
        s[name] = parseDate(name, value);
        continue;
    }
    // Plain text, including a `word:` that names no filter (the colon is punctuation to the index).
    const text = rawName ? `${rawName}:${value}` : value;
    if (HAS_WORD.test(text)) s.terms.push({ field: null, text, phrase: quoted !== undefined && !rawName, negated });
  }
  if (s.terms.length && s.terms.every((t) => t.negated)) {
    bad('A search cannot only exclude words: add at least one word to look for, or use the filters (from:, is:, has:, …).');
  }
  // Punctuation alone (`*`, `"`, `-`, `-""`) searches nothing: running it would list every message
  // as if it matched. Refused, like a search of exclusions only (docs/web.md#search).
  if (!isRestrictive(s)) {
    bad(excluded
      ? `A search cannot only exclude words, and ${JSON.stringify(q.trim())} has no word to exclude or look for: add at least one word (letters or digits), or use the filters (from:, is:, has:, …).`
      : `${JSON.stringify(q.trim())} has nothing to search for: a search needs at least one word (letters or digits) or a filter (from:, is:, has:, before:, …); punctuation alone is not searched.`);
  }
  return s;
}

/** `q` from a list query: absent or blank means no search. */
export function searchOf(q: string | undefined): MessageSearch | null {
  return q && q.trim() ? parseSearch(q) : null;
}

/**
 * `q` from a list query, ready to run: a search with text terms first indexes the messages still
 * queued for the full-text index (db/search-index.ts: the index is written in the background), so
 * it sees every message committed before it.
 */
export async function searchFor(ctx: AppContext, q: string | undefined): Promise<MessageSearch | null> {
  const s = searchOf(q);
  if (s?.terms.length) await catchUpSearchIndex(ctx.db);
  return s;
}

/**
 * One background pass over the full-text index's queue (server/workers/search-index.ts): batches
 * until the queue is empty or `stop()` says so, the event loop served between them. Returns how
 * many messages were indexed.
 */
export async function indexQueuedMessages(ctx: AppContext, stop: () => boolean = () => false): Promise<number> {
  if (!(await hasPendingSearch(ctx.db))) return 0;
  let total = 0;
  for (;;) {
    const n = await indexSearchBatch(ctx.db, SEARCH_INDEX_BATCH);
    total += n;
    if (n < SEARCH_INDEX_BATCH || stop()) return total;
  }
}
