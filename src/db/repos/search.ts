import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Db } from '../schema.js';
import { dialectOf, type DialectName } from '../dialect.js';
import { decodeCursor, encodeCursor, type CursorList, type PageRequest, type PageResult } from '../paginate.js';

/**
 * Message search (the `q` parameter of the received, sent and thread lists; syntax in
 * docs/web.md#search). The parsed query arrives here as data; this file is the one place that
 * turns it into SQL. Two engines, one set of conditions: only the text match and the intent
 * lookup differ. SQLite: FTS5 `MATCH` on `message_search` (migration 0011) and `json_extract`.
 * PostgreSQL: `@@` on the weighted `message_search.doc` tsvector (migration 0011, weights A–D
 * are the columns sender/recipients/subject/body) and `::jsonb ->>`.
 */

/** A text term: free text (any column) or a field filter (`from:`, `to:`, `subject:`). */
export interface SearchTerm {
  field: 'sender' | 'recipients' | 'subject' | null;
  text: string;
  /** A quoted phrase matches as written; a bare word also matches as a prefix (`invo` → invoice). */
  phrase: boolean;
  negated: boolean;
}

export interface MessageSearch {
  terms: SearchTerm[];
  hasAttachment?: boolean;
  quarantined?: boolean;
  read?: boolean;
  intents: string[];
  /** ISO timestamps: before is exclusive, after inclusive. */
  before?: string;
  after?: string;
}

/** True when the search restricts anything (an empty `q` lists as if there were none). */
export function isRestrictive(s: MessageSearch): boolean {
  return s.terms.length > 0 || s.hasAttachment !== undefined || s.quarantined !== undefined || s.read !== undefined
    || s.intents.length > 0 || s.before !== undefined || s.after !== undefined;
}

const quote = (t: string) => `"${t.replace(/"/g, '""')}"`;

/** Every term is quoted, so user text can never be read as FTS5 syntax (operators, columns, `*`). */
export function ftsQuery(terms: SearchTerm[]): string | null {
  const render = (t: SearchTerm) => `${t.field ? `${t.field} : ` : ''}${quote(t.text)}${t.phrase ? '' : '*'}`;
  const pos = terms.filter((t) => !t.negated).map(render);
  const neg = terms.filter((t) => t.negated).map(render);
  if (!pos.length) return null;
  return neg.length ? `(${pos.join(' AND ')}) NOT (${neg.join(' OR ')})` : pos.join(' AND ');
}

/** Message ids (rcv_ and msg_ alike) whose indexed text matches. */
function ftsIds(match: string) {
  return sql<string>`(SELECT k.message_id FROM message_search JOIN message_search_keys k ON k.search_rowid = message_search.rowid WHERE message_search MATCH ${match})`;
}

/** The tsvector weight each field filter's column was indexed with (migration 0011, PostgreSQL). */
const WEIGHT = { sender: 'A', recipients: 'B', subject: 'C', body: 'D' } as const;

/** A piece of a to_tsquery() text: syntax as written, or a word the server folds and quotes. */
export type TsQueryPart = string | { word: string };

/**
 * The PostgreSQL counterpart of ftsQuery(): a to_tsquery() text with the same meaning. Words are
 * split where the index splits them (every ASCII character but letters and digits, as
 * mailagent_search_text() does; the server's parser then splits the rest the same way on both
 * sides) and each is quoted by the server after folding (mailagent_search_lexeme()), so user
 * text is never tsquery syntax. A term of several words is a phrase (`<->`) as FTS5 reads a
 * quoted string; a bare word's last word is a prefix (`:*`). A field filter restricts to its
 * column's weight; free text of several words is tried per column (FTS5 phrases never span two
 * columns). Returns null when there is no positive term (no text condition), [] when a positive
 * term has no word at all (matches nothing).
 */
export function tsQuery(terms: SearchTerm[]): TsQueryPart[] | null {
  const words = (t: string) => t.split(/[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/).filter(Boolean);
  const render = (t: SearchTerm): TsQueryPart[] | null => {
    const w = words(t.text);
    if (!w.length) return null;
    const phrase = (weight: string): TsQueryPart[] => w.flatMap((word, i) => {
      const star = !t.phrase && i === w.length - 1 ? '*' : '';
      return [...(i ? [' <-> '] : []), { word }, ...(star || weight ? [`:${star}${weight}`] : [])];
    });
    if (t.field) return ['(', ...phrase(WEIGHT[t.field]), ')'];
    if (w.length === 1) return phrase('');
    return ['(', ...Object.values(WEIGHT).flatMap((wt, i) => [...(i ? [' | '] : []), '(', ...phrase(wt), ')']), ')'];
  };
  const join = (parts: TsQueryPart[][], op: string) => parts.flatMap((p, i) => [...(i ? [op] : []), ...p]);
  const pos = terms.filter((t) => !t.negated).map(render);
  const neg = terms.filter((t) => t.negated).map(render).filter((x): x is TsQueryPart[] => x !== null);
  if (!pos.length) return null;
  if (pos.some((p) => p === null)) return []; // as FTS5's empty phrase
  const all = join(pos as TsQueryPart[][], ' & ');
  return neg.length ? ['(', ...all, ') & !(', ...join(neg, ' | '), ')'] : all;
}

/** The tsquery text, words shown as the server would quote them before folding (tests, logs). */
export const tsQueryText = (parts: TsQueryPart[]) => parts.map((p) => (typeof p === 'string' ? p : `'${p.word}'`)).join('');

/** PostgreSQL: message ids whose weighted tsvector (migration 0011) matches. */
function tsIds(parts: TsQueryPart[]) {
  const text = sql.join(parts.map((p) => (typeof p === 'string' ? sql`${p}::text` : sql`mailagent_search_lexeme(${p.word}::text)`)), sql` || `);
  return sql<string>`(SELECT message_id FROM message_search WHERE doc @@ to_tsquery('simple', ${text}))`;
}

const intentOf = (dialect: DialectName, column: string) => dialect === 'postgres'
  ? sql<string>`(${sql.ref(column)})::jsonb ->> 'intent'`
  : sql<string>`json_extract(${sql.ref(column)}, '$.intent')`;
const NOTHING = sql<SqlBool>`0 = 1`;

/** Where each kind of mail keeps what a search looks at. */
const KINDS = {
  received: { table: 'received_messages', time: 'received_at' },
  sent: { table: 'sent_messages', time: 'created_at' },
} as const;

/**
 * The WHERE conditions a search adds on one kind of mail (all must hold). Sent mail is never
 * quarantined, never unread and has no intent, so `is:quarantined`, `is:unread` and `intent:`
 * match none of it (and their negations all of it).
 */
function conditions(dialect: DialectName, s: MessageSearch, kind: keyof typeof KINDS, text = true): Expression<SqlBool>[] {
  const k = KINDS[kind];
  const c = (col: string) => sql.ref(`${k.table}.${col}`);
  const out: Expression<SqlBool>[] = [];
  if (!text) {
    // the text match is the caller's (searchPage)
  } else if (dialect === 'postgres') {
    const match = tsQuery(s.terms);
    if (match && !match.length) out.push(NOTHING);
    else if (match) out.push(sql<SqlBool>`${c('id')} IN ${tsIds(match)}`);
  } else {
    const match = ftsQuery(s.terms);
    if (match) out.push(sql<SqlBool>`${c('id')} IN ${ftsIds(match)}`);
  }
  // A literal: the partial index of the messages with attachments (migration 0031) applies only so.
  if (s.hasAttachment !== undefined) out.push(sql<SqlBool>`${c('has_attachments')} = ${sql.lit(s.hasAttachment ? 1 : 0)}`);
  if (kind === 'received') {
    // Literals, not bound values: the partial indexes of `is:quarantined` and `is:read` (migration 0030) apply only so.
    if (s.quarantined !== undefined) out.push(sql<SqlBool>`${c('quarantined')} = ${sql.lit(s.quarantined ? 1 : 0)}`);
    if (s.read !== undefined) out.push(s.read ? sql<SqlBool>`${c('read_at')} IS NOT NULL` : sql<SqlBool>`${c('read_at')} IS NULL`);
    // The expression of the index received_intent (migration 0031): one intent is a range of it in page order.
    if (s.intents.length === 1) out.push(sql<SqlBool>`${intentOf(dialect, `${k.table}.classification`)} = ${s.intents[0]}`);
    else if (s.intents.length) out.push(sql<SqlBool>`${intentOf(dialect, `${k.table}.classification`)} IN (${sql.join(s.intents)})`);
  } else if (s.quarantined === true || s.read === false || s.intents.length) {
    out.push(NOTHING);
  }
  if (s.before) out.push(sql<SqlBool>`${c(k.time)} < ${s.before}`);
  if (s.after) out.push(sql<SqlBool>`${c(k.time)} >= ${s.after}`);
  return out;
}

/** The WHERE conditions of a search on received mail; `text: false` leaves the text match out (searchPage adds it). */
export const receivedConditions = (db: Db, s: MessageSearch, text = true) => conditions(dialectOf(db), s, 'received', text);
export const sentConditions = (db: Db, s: MessageSearch, text = true) => conditions(dialectOf(db), s, 'sent', text);

/**
 * The FTS5 query of a search whose page searchPage() should make (SQLite, a positive text term),
 * else null: the list then adds every condition itself and pages as any list does.
 */
export function textMatchOf(db: Db, s: MessageSearch | null | undefined): string | null {
  return s && dialectOf(db) === 'sqlite' ? ftsQuery(s.terms) : null;
}

/**
 * How searchPage() walks (issue #13, bench/README.md round 2 session 13). Exported for the tests,
 * which lower them to walk small tables window by window.
 */
export const TEXT_WALK = {
  /** Fewer matching messages than this in the whole index: look each one up (the plain IN). */
  fewMatches: 1000,
  /** Rows of the list the first window holds; each next window twice the last. */
  firstWindow: 1024,
  /** Rows walked in windows at most (and at most as many as the index holds matches) before the rest of the page is made the plain way. */
  maxWalked: 65_536,
};

// The builder's generic parameters vary per table; the list's query is a plain select of one table.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySelect = SelectQueryBuilder<any, any, any>;

/**
 * A page of the received or sent list whose search has a text term, on SQLite, newest first: the
 * same rows, has_more and next_cursor as `paginate()` of the list with every condition and the
 * text match as `id IN (matching ids)` ("the plain way"). That form reads every matching
 * message's key (the id behind an FTS5 rowid: one random B-tree lookup each, 50 ms for a word in
 * 5,000 messages) before the page, however few the page needs. So when the index holds
 * `fewMatches` matches or more, the page is made in windows of the list's own order instead: a
 * window is the next `firstWindow` (then twice as many) rows of the list without the text match
 * (`id >= edge`, the bound found by walking the list's index), and in it each row's key is looked
 * up by id — in id order, so neighbouring entries — and tested against the set of matching FTS5
 * rowids (read from the doclist, ~1 ms for 5,000). A window is a whole stretch of the list, so
 * its matches are exactly the list's next ones. Windows go on until the page is full or the list
 * ends, unless the rows walked so far say the page would need more rows walked than the index
 * holds matches (or `maxWalked`): a word common elsewhere but rare in this list; the rest of the
 * page is then made the plain way. `base` is the list's query with every other condition and its columns.
 */
export async function searchPage<T>(db: Db, base: AnySelect, kind: 'received' | 'sent', match: string, page: PageRequest, list: CursorList): Promise<PageResult<T>> {
  const limit = page.limit ?? 25;
  const id = `${KINDS[kind].table}.id`;
  const matching = sql<string>`(SELECT rowid FROM message_search WHERE message_search MATCH ${match})`;
  const plain = sql<SqlBool>`${sql.ref(id)} IN ${ftsIds(match)}`;
  let before = page.cursor ? decodeCursor(list, page.cursor) : null;
  const below = (q: AnySelect) => (before === null ? q : q.where(id, '<', before));
  // How many messages match, counted up to what the walk may cost at most.
  const budget = Math.max(TEXT_WALK.fewMatches, TEXT_WALK.maxWalked);
  const counted = await sql<{ n: number }>`SELECT count(*) AS n FROM (SELECT rowid FROM message_search WHERE message_search MATCH ${match} LIMIT ${budget})`.execute(db);
  const matches = Number(counted.rows[0]?.n ?? 0);
  const rows: T[] = [];
  let walked = 0;
  if (matches >= TEXT_WALK.fewMatches) {
    const keyed = sql<SqlBool>`(SELECT k.search_rowid FROM message_search_keys k WHERE k.message_id = ${sql.ref(id)}) IN ${matching}`;
    const most = Math.min(matches, TEXT_WALK.maxWalked);
    for (let window = TEXT_WALK.firstWindow; ; window *= 2) {
      // The window's last (oldest) row: none when the list ends within it.
      const edge = await below(base.clearSelect().select(`${id} as id`)).orderBy(id, 'desc').limit(1).offset(window - 1).executeTakeFirst() as { id: string } | undefined;
      let q = below(base.where(keyed));
      if (edge) q = q.where(id, '>=', edge.id);
      rows.push(...(await q.orderBy(id, 'desc').limit(limit + 1 - rows.length).execute()) as T[]);
      walked += window;
      if (!edge || rows.length > limit) return pageOfRows(rows, limit, list);
      before = edge.id;
      // The rows still to walk at the rate met so far (half a match when none was): past the
      // budget, the plain way reads fewer keys than the walk would.
      if (walked + ((limit + 1 - rows.length) * walked) / Math.max(rows.length, 0.5) > most) break;
    }
  }
  rows.push(...(await below(base.where(plain)).orderBy(id, 'desc').limit(limit + 1 - rows.length).execute()) as T[]);
  return pageOfRows(rows, limit, list);
}

/** The page of a list made of up to `limit + 1` rows in its order, with its cursor (the last row's id), as paginate() makes it. */
function pageOfRows<T>(rows: T[], limit: number, list: CursorList): PageResult<T> {
  const has_more = rows.length > limit;
  if (has_more) rows.pop();
  const last = rows[rows.length - 1] as Record<string, unknown> | undefined;
  return has_more && last ? { rows, has_more, next_cursor: encodeCursor(list, String(last.id)) } : { rows, has_more };
}

/** Threads of a workspace holding at least one message (sent or received) that matches every condition. */
export function threadConditions(db: Db, workspaceId: string, s: MessageSearch): Expression<SqlBool>[] {
  if (!isRestrictive(s)) return [];
  let received = db.selectFrom('received_messages').select('received_messages.thread_id as tid')
    .where('received_messages.workspace_id', '=', workspaceId).where('received_messages.thread_id', 'is not', null);
  for (const cond of receivedConditions(db, s)) received = received.where(cond);
  let sent = db.selectFrom('sent_messages').select('sent_messages.thread_id as tid').where('sent_messages.workspace_id', '=', workspaceId);
  for (const cond of sentConditions(db, s)) sent = sent.where(cond);
  // UNION ALL: an IN list needs no distinct rows, and UNION's merge made SQLite read each side in
  // thread order (a walk of every sent message of the workspace) instead of through its filter's index.
  return [sql<SqlBool>`threads.id IN (${received.unionAll(sent)})`];
}
