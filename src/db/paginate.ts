import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { Errors } from '../shared/errors.js';

/**
 * Keyset pagination on a time-ordered id column (ids sort by creation), newest first by
 * default. O(page) through an index; never OFFSET. The cursor is opaque to clients:
 * base64url of the last row's key.
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

export function encodeCursor(key: string): string {
  return Buffer.from(`c1:${key}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  // Keys are ids or timestamps: printable ASCII only, so stray bytes cannot reach a query.
  if (!text.startsWith('c1:') || !/^[\x21-\x7e]+$/.test(text.slice(3)) || encodeCursor(text.slice(3)) !== cursor) {
    throw Errors.invalidParam('cursor', 'The cursor is not valid; pass the `next_cursor` of the previous page unchanged.');
  }
  return text.slice(3);
}

// The builder's generic parameters vary per table; the column is a plain id column.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnySelect = SelectQueryBuilder<any, any, any>;

export async function paginate<T>(
  query: AnySelect,
  column: string,
  page: PageRequest,
  order: 'desc' | 'asc' = 'desc',
): Promise<PageResult<T>> {
  const limit = page.limit ?? 25;
  let q = query;
  if (page.cursor) q = q.where(column, order === 'desc' ? '<' : '>', decodeCursor(page.cursor));
  const rows = (await q.orderBy(column, order).limit(limit + 1).execute()) as T[];
  const has_more = rows.length > limit;
  if (has_more) rows.pop();
  const last = rows[rows.length - 1] as Record<string, unknown> | undefined;
  const key = column.includes('.') ? column.split('.').pop()! : column;
  return has_more && last ? { rows, has_more, next_cursor: encodeCursor(String(last[key])) } : { rows, has_more };
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
