import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../schema.js';

/**
 * Message search (the `q` parameter of the received, sent and thread lists; syntax in
 * docs/web.md#search). The parsed query arrives here as data; this file is the one place that
 * turns it into SQL, and it is SQLite-specific: FTS5 `MATCH` on `message_search` (built by
 * migration 0011) and `json_extract` on the stored classification. A PostgreSQL port replaces
 * `ftsIds()` and `intentOf()` (tsvector/`@@`, `->>`) and keeps everything else.
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

const intentOf = (column: string) => sql<string>`json_extract(${sql.ref(column)}, '$.intent')`;
const NOTHING = sql<SqlBool>`0 = 1`;

/** Where each kind of mail keeps what a search looks at. */
const KINDS = {
  received: { table: 'received_messages', time: 'received_at', attachments: 'received_attachments', fk: 'received_message_id' },
  sent: { table: 'sent_messages', time: 'created_at', attachments: 'sent_attachments', fk: 'message_id' },
} as const;

/**
 * The WHERE conditions a search adds on one kind of mail (all must hold). Sent mail is never
 * quarantined, never unread and has no intent, so `is:quarantined`, `is:unread` and `intent:`
 * match none of it (and their negations all of it).
 */
function conditions(s: MessageSearch, kind: keyof typeof KINDS): Expression<SqlBool>[] {
  const k = KINDS[kind];
  const c = (col: string) => sql.ref(`${k.table}.${col}`);
  const out: Expression<SqlBool>[] = [];
  const match = ftsQuery(s.terms);
  if (match) out.push(sql<SqlBool>`${c('id')} IN ${ftsIds(match)}`);
  if (s.hasAttachment !== undefined) {
    const exists = sql<SqlBool>`EXISTS (SELECT 1 FROM ${sql.table(k.attachments)} a WHERE ${sql.ref(`a.${k.fk}`)} = ${c('id')})`;
    out.push(s.hasAttachment ? exists : sql<SqlBool>`NOT ${exists}`);
  }
  if (kind === 'received') {
    if (s.quarantined !== undefined) out.push(sql<SqlBool>`${c('quarantined')} = ${s.quarantined ? 1 : 0}`);
    if (s.read !== undefined) out.push(s.read ? sql<SqlBool>`${c('read_at')} IS NOT NULL` : sql<SqlBool>`${c('read_at')} IS NULL`);
    if (s.intents.length) out.push(sql<SqlBool>`${intentOf(`${k.table}.classification`)} IN (${sql.join(s.intents)})`);
  } else if (s.quarantined === true || s.read === false || s.intents.length) {
    out.push(NOTHING);
  }
  if (s.before) out.push(sql<SqlBool>`${c(k.time)} < ${s.before}`);
  if (s.after) out.push(sql<SqlBool>`${c(k.time)} >= ${s.after}`);
  return out;
}

export const receivedConditions = (s: MessageSearch) => conditions(s, 'received');
export const sentConditions = (s: MessageSearch) => conditions(s, 'sent');

/** Threads of a workspace holding at least one message (sent or received) that matches every condition. */
export function threadConditions(db: Db, workspaceId: string, s: MessageSearch): Expression<SqlBool>[] {
  if (!isRestrictive(s)) return [];
  let received = db.selectFrom('received_messages').select('received_messages.thread_id as tid')
    .where('received_messages.workspace_id', '=', workspaceId).where('received_messages.thread_id', 'is not', null);
  for (const cond of receivedConditions(s)) received = received.where(cond);
  let sent = db.selectFrom('sent_messages').select('sent_messages.thread_id as tid').where('sent_messages.workspace_id', '=', workspaceId);
  for (const cond of sentConditions(s)) sent = sent.where(cond);
  return [sql<SqlBool>`threads.id IN (${received.union(sent)})`];
}
