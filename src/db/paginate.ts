import { createHash } from 'node:crypto';
import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { Errors } from '../shared/errors.js';

/**
 * Keyset pagination on a time-ordered id column (ids sort by creation), newest first by
 * default. O(page) through an index; never OFFSET. The cursor is opaque to clients; inside it
 * says which list it continues (encodeCursor), so a cursor passed to another list, or altered,
 * is a 400 naming the problem rather than a page of something else (docs/api-foundation.md → Lists).
 */
export interface PageRequest {
  limit?: number;
  cursor?: string;
}
export interface PageResult<T> {
  rows: T[];
  has_more: boolean;
  next_cursor?: string;
}

/**
 * Which list a cursor belongs to, as its error messages name it: the resource listed ("agents",
 * "sent messages", …), and its order when a list can be walked both ways. Filters are not part of
 * it: the key is a position in the list's order, valid under any filter (`GET /v1/messages?agent_id=`
 * of another agent continues from the same point in time); the order is, since a cursor of one
 * direction means nothing in the other.
 */
export type CursorList = string;

const checksum = (payload: string) => createHash('sha256').update(payload).digest('hex').slice(0, 10);

/**
 * base64url(`c2|<list>|<key>|<checksum>`): the checksum (SHA-256 of the rest, 40 bits) catches a
 * cursor altered or cut short; it is no secret — a cursor grants nothing, every list is limited
 * to the caller's workspace and filters — so any daemon of a cluster, and the same one after a
 * restart, reads it.
 */
export function encodeCursor(list: CursorList, key: string): string {
  const payload = `c2|${list}|${key}`;
  return Buffer.from(`${payload}|${checksum(payload)}`, 'utf8').toString('base64url');
}

const INVALID = 'The cursor is not valid (altered or cut short); pass the `next_cursor` of the previous page of this list unchanged, or leave `cursor` out to start from the first page.';

export function decodeCursor(list: CursorList, cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  // Keys are ids or timestamps: printable ASCII only, so stray bytes cannot reach a query.
  const canonical = /^[\x20-\x7e]+$/.test(text) && Buffer.from(text, 'utf8').toString('base64url') === cursor;
  // Before lists were named (`c1:<key>`): still read, unchecked, so a client paging across the
  // upgrade (a restart between pages) goes on; they name no list, so none can be refused.
  if (canonical && text.startsWith('c1:') && /^[\x21-\x7e]+$/.test(text.slice(3))) return text.slice(3);
  const m = canonical ? /^c2\|([^|]+)\|([\x21-\x7e]+)\|([0-9a-f]{10})$/.exec(text) : null;
  if (!m || checksum(`c2|${m[1]}|${m[2]}`) !== m[3]) throw Errors.invalidParam('cursor', INVALID);
  if (m[1] !== list) {
    throw Errors.invalidParam('cursor', `This cursor continues the list of ${m[1]}, not this list of ${list}: pass a cursor only to the list whose page returned it, or leave \`cursor\` out to start from the first page.`);
  }
  return m[2];
}

// The builder's generic parameters vary per table; the column is a plain id column.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySelect = SelectQueryBuilder<any, any, any>;

/** The cursor list of a list that can be walked both ways: the order is part of it. */
export const orderedList = (list: CursorList, order: 'desc' | 'asc'): CursorList => (order === 'asc' ? `${list} (oldest first)` : list);

export async function paginate<T>(
  query: AnySelect,
  column: string,
  page: PageRequest,
  list: CursorList,
  order: 'desc' | 'asc' = 'desc',
): Promise<PageResult<T>> {
  const limit = page.limit ?? 25;
  const named = orderedList(list, order);
  let q = query;
  if (page.cursor) q = q.where(column, order === 'desc' ? '<' : '>', decodeCursor(named, page.cursor));
  const rows = (await q.orderBy(column, order).limit(limit + 1).execute()) as T[];
  const has_more = rows.length > limit;
  if (has_more) rows.pop();
  const last = rows[rows.length - 1] as Record<string, unknown> | undefined;
  const key = column.includes('.') ? column.split('.').pop()! : column;
  return has_more && last ? { rows, has_more, next_cursor: encodeCursor(named, String(last[key])) } : { rows, has_more };
}

/** The API's page shape (spec: Shared list conventions): `next_cursor` is absent on the last page. */
export function pageOf<U>(res: { has_more: boolean; next_cursor?: string }, data: U[]): { data: U[]; has_more: boolean; next_cursor?: string } {
  return res.next_cursor ? { data, has_more: res.has_more, next_cursor: res.next_cursor } : { data, has_more: res.has_more };
}

export const bool = (v: number | boolean | null | undefined): boolean => v === 1 || v === true;
export const int = (v: boolean): number => (v ? 1 : 0);
export function json<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  return JSON.parse(text) as T;
}

/**
 * How much of a text body a list of sent messages or drafts reads: their items carry an excerpt
 * (services: `body_text_excerpt`), not the bodies — a page of 100 with 1 MB bodies was 200 MB of
 * JSON built on the main thread (an outside tester, round 2 session 9).
 */
export const LIST_BODY_CHARS = 1000;

/** `body_text` cut to LIST_BODY_CHARS in SQL (SQLite and PostgreSQL), so the rest is never read. */
export function listBodyText(): RawBuilder<string | null> {
  return sql<string | null>`substr(body_text, 1, ${sql.lit(LIST_BODY_CHARS)})`;
}

/**
 * `true` only when `Listed` and `Omitted` together name every column of `Table`: a list's column
 * list typed `const complete: ListsEveryColumn<…> = true` fails to compile once a column is added
 * to the table and to neither.
 */
export type ListsEveryColumn<Table, Listed extends keyof Table, Omitted extends keyof Table> = [Exclude<keyof Table, Listed | Omitted>] extends [never] ? true : never;
