/**
 * "Did you mean" for a path no route matches: the routes one path segment away from it (one
 * segment too many, one missing, or one route word misspelt), with the request's own values kept
 * in the parameter positions — `GET /v1/messages/received/rcv_1/raw` suggests
 * `GET /v1/messages/rcv_1/raw`. A different word counts only as a typo (`agent` for `agents`);
 * typos are listed first. A hint names a real route only: a request word moved into a route's
 * id position must look like an id (`rcv_1`, an address, a domain), so `GET /v1/search` does not
 * suggest `/v1/agents/search` (an agent nobody named); failing those, static routes (no id in
 * them) a typo away from the whole path. Bounded work per 404 (routes × segments², at most
 * MAX_SEGMENTS segments), no regular expression over the request path.
 */

import { editDistance } from '../../shared/edit-distance.js';

const MAX_SEGMENTS = 10;
const MAX_SUGGESTIONS = 3;

interface Pattern { method: string; segs: string[] }

const isParam = (s: string) => s.startsWith(':');

/**
 * What the client could have meant as an id when a hint moves its word into an id position: a
 * prefixed id (`rcv_01h…`), an address (`agent@…`) or a domain name. A plain word (`search`,
 * `foo`) is not: the route it would fill is one nobody asked for.
 */
const ID_LIKE = /^(?:[a-z]{2,8}_[0-9a-z]{3,}|[^\s@/]+@[^\s@/]+|[a-z0-9-]+(?:\.[a-z0-9-]+)+)$/i;

/** A typo of a route word, not another word: `agent` for `agents`, `recieved` for `received`. */
const typo = (typed: string, word: string) => {
  const max = Math.max(1, Math.floor(word.length / 3));
  return editDistance(typed.toLowerCase(), word, max) <= max;
};
const split = (path: string) => path.split('/').filter(Boolean);

export class RouteSuggester {
  private readonly patterns: Pattern[] = [];
  /** Every literal segment of a route: a word the API uses, never offered as an id. */
  private readonly words = new Set<string>();
  /** The routes without an id in them, for the whole-path typo fallback. */
  private readonly statics: Pattern[] = [];

  add(method: string, path: string): void {
    const segs = split(path);
    this.patterns.push({ method, segs });
    if (!segs.some(isParam)) this.statics.push({ method, segs });
    for (const s of segs) if (!isParam(s)) this.words.add(s);
  }

  /**
   * The request segments, when they match the pattern segment for segment — and no route word
   * of the request stands where the pattern takes an id (`/v1/received` is not a near miss of
   * `/v1/agents/:id` read as `/v1/agents/received`).
   */
  private fit(p: string[], r: string[], movedFrom = p.length): string[] | null {
    if (p.length !== r.length) return null;
    for (let i = 0; i < p.length; i++) {
      if (isParam(p[i]) ? this.words.has(r[i]) || (i >= movedFrom && !ID_LIKE.test(r[i])) : p[i] !== r[i]) return null;
    }
    return r;
  }

  /** Up to three `METHOD /path` strings for `method path`, closest kinds first; empty when none is near. */
  suggest(method: string, path: string): string[] {
    const r = split(path);
    if (r.length > MAX_SEGMENTS + 1 || path.length > 2048) return [];
    const shifted: string[] = [];
    const replaced: string[] = [];
    for (const p of this.patterns) {
      if (p.method !== method) continue;
      const s = p.segs;
      if (s.length === r.length - 1) {
        // One segment too many in the request.
        for (let i = 0; i < r.length; i++) {
          const got = this.fit(s, [...r.slice(0, i), ...r.slice(i + 1)], i);
          if (got) { shifted.push('/' + got.join('/')); break; }
        }
      } else if (s.length === r.length + 1) {
        // One literal segment missing from the request.
        for (let i = 0; i < s.length; i++) {
          if (isParam(s[i])) continue;
          const got = this.fit(s, [...r.slice(0, i), s[i], ...r.slice(i)], i + 1);
          if (got) { shifted.push('/' + got.join('/')); break; }
        }
      } else if (s.length === r.length) {
        let diff = -1;
        let ok = true;
        for (let i = 0; i < s.length && ok; i++) {
          if (isParam(s[i]) ? !this.words.has(r[i]) : s[i] === r[i]) continue;
          if (diff >= 0) ok = false;
          diff = i;
        }
        if (ok && diff >= 0 && typo(r[diff], s[diff])) replaced.push('/' + r.map((seg, i) => (i === diff ? s[i] : seg)).join('/'));
      }
    }
    const near = [...new Set([...replaced, ...shifted])];
    if (!near.length) near.push(...this.closeStatics(method, path));
    return near.slice(0, MAX_SUGGESTIONS).map((p) => `${method} ${p}`);
  }

  /** Static routes of `method` a typo away from the whole path (a sixth of its length at most), closest first. */
  private closeStatics(method: string, path: string): string[] {
    const want = '/' + split(path).join('/').toLowerCase();
    const max = Math.max(1, Math.floor(want.length / 6));
    return this.statics
      .filter((p) => p.method === method)
      .map((p) => ({ path: '/' + p.segs.join('/'), d: editDistance(want, '/' + p.segs.join('/'), max) }))
      .filter((x) => x.d > 0 && x.d <= max)
      .sort((a, b) => a.d - b.d || a.path.localeCompare(b.path))
      .map((x) => x.path);
  }
}
