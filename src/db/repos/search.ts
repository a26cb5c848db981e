import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { Db } from '../schema.js';
import { dialectOf, type DialectName } from '../dialect.js';
import { decodeCursor, encodeCursor, type CursorList, type PageRequest, type PageResult } from '../paginate.js';
import { SEARCH_KINDS } from '../search-index-sql.js';

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

/**
 * Ids of the messages of one kind whose indexed text matches: the kind's range of FTS5 rowids
 * (migration 0036, search-index-sql.ts SEARCH_KINDS), so the other kind's matches are not read.
 */
function ftsIds(match: string, kind: keyof typeof KINDS) {
  const K = SEARCH_KINDS[kind];
  return sql<string>`(SELECT k.message_id FROM message_search CROSS JOIN message_search_keys k ON k.search_rowid = message_search.rowid
    WHERE message_search MATCH ${match} AND message_search.rowid BETWEEN ${sql.lit(K.lo)} AND ${sql.lit(K.hi)})`;
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
    if (match) out.push(sql<SqlBool>`${c('id')} IN ${ftsIds(match, kind)}`);
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
 * How searchPage() reads the index (issue #13, bench/README.md round 2 session 14). Exported for
 * the tests, which lower them to read a page in many small chunks.
 */
export const TEXT_WALK = {
  /** Matches read first (0: the page's limit + 1, all a page needs when every match is the list's). */
  firstChunk: 0,
  /** Each next chunk holds this many times the last one's matches, up to maxChunk. */
  growth: 4,
  maxChunk: 4096,
};

// The builder's generic parameters vary per table; the list's query is a plain select of one table.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySelect = SelectQueryBuilder<any, any, any>;

/**
 * A page of the received or sent list whose search has a text term, on SQLite, newest first: the
 * same rows, has_more and next_cursor as `paginate()` of the list with every condition and the
 * text match as `id IN (matching ids)`. The index's rowids are in list order within the kind's
 * range (migration 0036, search-index-sql.ts SEARCH_KINDS), so the matches are read from the
 * FTS5 doclist newest first (`ORDER BY rowid DESC`, below the cursor's key), a chunk at a time
 * (the page's limit + 1 first, then 4 times more each), each chunk's ids looked up in the list
 * with its other conditions (workspace, agent, `is:read`…): a chunk is a whole stretch of the
 * kind's matches, so the list's rows among them are exactly its next ones. Chunks go on until
 * the page is full or the matches end. A word in 5,000 sent messages: one chunk of 21 for the
 * page; in no received message: one empty read of the received range.
 * `base` is the list's query with every other condition and its columns.
 */
export async function searchPage<T>(db: Db, base: AnySelect, kind: 'received' | 'sent', match: string, page: PageRequest, list: CursorList): Promise<PageResult<T>> {
  const limit = page.limit ?? 25;
  const K = SEARCH_KINDS[kind];
  const id = `${KINDS[kind].table}.id`;
  let hi: number = K.hi;
  if (page.cursor) {
    // The key of the newest message below the cursor (the cursor's own message may be gone).
    const before = decodeCursor(list, page.cursor);
    const key = await sql<{ r: number }>`SELECT search_rowid AS r FROM message_search_keys
      WHERE message_id < ${before} AND message_id >= ${K.prefix} AND +search_rowid BETWEEN ${sql.lit(K.lo)} AND ${sql.lit(K.hi)}
      ORDER BY message_id DESC LIMIT 1`.execute(db);
    if (!key.rows.length) return { rows: [], has_more: false };
    hi = Number(key.rows[0].r);
  }
  const rows: T[] = [];
  for (let chunk = TEXT_WALK.firstChunk || limit + 1; ; chunk = Math.min(chunk * TEXT_WALK.growth, Math.max(TEXT_WALK.maxChunk, chunk))) {
    // CROSS JOIN: the doclist is the outer loop, read in rowid order, each key by its rowid.
    const hits = (await sql<{ r: number; id: string }>`SELECT message_search.rowid AS r, k.message_id AS id
      FROM message_search CROSS JOIN message_search_keys k ON k.search_rowid = message_search.rowid
      WHERE message_search MATCH ${match} AND message_search.rowid BETWEEN ${sql.lit(K.lo)} AND ${hi}
      ORDER BY message_search.rowid DESC LIMIT ${chunk}`.execute(db)).rows;
    if (hits.length) {
      const ids = JSON.stringify(hits.map((h) => h.id));
      rows.push(...(await base.where(sql<SqlBool>`${sql.ref(id)} IN (SELECT value FROM json_each(${ids}))`).orderBy(id, 'desc').limit(limit + 1 - rows.length).execute()) as T[]);
    }
    if (rows.length > limit || hits.length < chunk) return pageOfRows(rows, limit, list);
    hi = Number(hits[hits.length - 1].r) - 1;
  }
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
  // With a text term on SQLite, `+workspace_id` (which no index serves): each kind's matching
  // messages are looked up by id from the index's doclist, instead of SQLite walking a covering
  // index of every message of the workspace to test each id against them (1M entries for a
  // word in 5,000 sent messages: 3 s; bench/README.md round 2 session 14).
  const ws = (table: string) => (textMatchOf(db, s) === null ? sql<SqlBool>`${sql.ref(`${table}.workspace_id`)} = ${workspaceId}` : sql<SqlBool>`+${sql.ref(`${table}.workspace_id`)} = ${workspaceId}`);
  let received = db.selectFrom('received_messages').select('received_messages.thread_id as tid')
    .where(ws('received_messages')).where('received_messages.thread_id', 'is not', null);
  for (const cond of receivedConditions(db, s)) received = received.where(cond);
  let sent = db.selectFrom('sent_messages').select('sent_messages.thread_id as tid').where(ws('sent_messages'));
  for (const cond of sentConditions(db, s)) sent = sent.where(cond);
  // UNION ALL: an IN list needs no distinct rows, and UNION's merge made SQLite read each side in
  // thread order (a walk of every sent message of the workspace) instead of through its filter's index.
  return [sql<SqlBool>`threads.id IN (${received.unionAll(sent)})`];
}
