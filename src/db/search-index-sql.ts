// The SQLite half of the search index's background work (migrations 0027 and 0036,
// db/search-index.ts): no imports, because the checkpointer's worker thread
// (db/checkpointer-thread.ts) runs it on its own connection and loads nothing it does not need.

/** What a batch needs of a connection: the shape of db/direct.ts DirectStatements. */
export interface SearchIndexStatements {
  get(sql: string, params: readonly unknown[]): unknown;
  all(sql: string, params: readonly unknown[]): unknown[];
  run(sql: string, params: readonly unknown[]): number;
}

/**
 * What each kind of mail indexes (FTS5 columns sender, recipients, subject, body), as migrations
 * 0011 and 0018 defined it: received mail's fields cut to their first 100,000 characters
 * (0018: PostgreSQL's mailagent_search_text() limit), sent mail's whole. `m` is the message row.
 */
export const SEARCH_COLUMNS = {
  received_messages: [
    `coalesce(m.from_name, '') || ' ' || m.from_address`,
    `m."to" || ' ' || m.cc || ' ' || m.recipient`,
    'm.subject',
    'coalesce(m.text, m.excerpt)',
  ].map((e) => `substr(${e}, 1, 100000)`),
  sent_messages: [
    `coalesce(m.from_name, '') || ' ' || m.from_address`,
    `m."to" || ' ' || m.cc || ' ' || m.bcc`,
    'm.subject',
    `coalesce(m.body_text, m.body_html, '')`,
  ],
} as const;

/**
 * The search index's keys (migration 0036, issue #13): each kind of mail has its own range of
 * FTS5 rowids, and within it the rowids are in the order of the message ids, i.e. of the
 * received and sent lists. So a text search of a list reads the FTS5 doclist newest first,
 * restricted to its kind's range (`rowid BETWEEN lo AND hi ORDER BY rowid DESC`), and stops at
 * the page (repos/search.ts searchPage); a word common in the other kind of mail costs nothing.
 *
 * Ids (shared/ids.ts) are 130 bits and do not fit a rowid, so rowids are assigned, not derived:
 * a new key goes between the keys of its neighbours in id order (after the last one: `STEP`
 * higher, leaving room for mail stored later with an older id — a pipeline worker's, a message
 * re-indexed after an edit). When its neighbours leave no room, the next keys are taken out and
 * placed again in the same batch (their index rows rewritten): rare, local. The ranges stay
 * below 2^53 (exact in a JavaScript number): 2^51 rowids per kind, the first key in the middle.
 * A kind's keys are the ids with its prefix (`msg_`, `rcv_`: every id the services make); the
 * neighbours are looked up among those.
 */
export const SEARCH_KINDS = {
  sent: { table: 'sent_messages', prefix: 'msg_', lo: 2 ** 51, hi: 2 ** 52 - 1 },
  received: { table: 'received_messages', prefix: 'rcv_', lo: 2 ** 52, hi: 2 ** 52 + 2 ** 51 - 1 },
} as const;
export type SearchKind = keyof typeof SEARCH_KINDS;
/** The gap left after the last key of a kind. */
export const SEARCH_ROWID_STEP = 2 ** 16;
/** The first key of an empty kind, from its `lo`: as much room below as above. */
export const SEARCH_ROWID_FIRST = 2 ** 50;
/** The least id above every id with `prefix` (`msg_` → `msg\``). */
export const prefixEnd = (prefix: string) => prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

const LAST = 'SELECT max(message_id) AS last FROM (SELECT message_id FROM message_search_pending ORDER BY message_id LIMIT ?)';
const BATCH = `SELECT p.message_id AS id, EXISTS (SELECT 1 FROM received_messages r WHERE r.id = p.message_id) AS received
  FROM message_search_pending p WHERE p.message_id <= ? ORDER BY p.message_id`;
// `+search_rowid`: the rowid range only filters; the walk is the message_id index's, from the id.
const PREV = `SELECT search_rowid AS r FROM message_search_keys
  WHERE message_id < ? AND message_id >= ? AND +search_rowid BETWEEN ? AND ? ORDER BY message_id DESC LIMIT 1`;
const NEXT = `SELECT search_rowid AS r, message_id AS id FROM message_search_keys
  WHERE message_id > ? AND message_id < ? AND +search_rowid BETWEEN ? AND ? ORDER BY message_id LIMIT 1`;
const KEY = 'INSERT INTO message_search_keys (search_rowid, message_id) VALUES (?, ?)';
const UNINDEX = ['DELETE FROM message_search WHERE rowid = ?', 'DELETE FROM message_search_keys WHERE search_rowid = ?'];
const ROWS = Object.entries(SEARCH_COLUMNS).map(([table, cols]) => `INSERT INTO message_search (rowid, sender, recipients, subject, body)
  SELECT k.search_rowid, ${cols.join(', ')}
  FROM json_each(?) j JOIN ${table} m ON m.id = j.value JOIN message_search_keys k ON k.message_id = m.id`);
const DONE = 'DELETE FROM message_search_pending WHERE message_id IN (SELECT value FROM json_each(?))';

/**
 * Give each id of `work` (ids of one kind without keys, ascending) its key, in id order between
 * its neighbours (SEARCH_KINDS). Returns the ids keyed: `work` and any key taken out to make room.
 */
function placeKeys(s: SearchIndexStatements, kind: SearchKind, work: string[]): string[] {
  const K = SEARCH_KINDS[kind];
  const end = prefixEnd(K.prefix);
  for (let i = 0; i < work.length; i++) {
    const x = work[i];
    const prev = s.get(PREV, [x, K.prefix, K.lo, K.hi]) as { r: number } | undefined;
    let next = s.get(NEXT, [x, end, K.lo, K.hi]) as { r: number; id: string } | undefined;
    const p = prev ? prev.r : K.lo - 1;
    // The ids of this batch still to place before the next key: they share the gap.
    let k = 0;
    while (next && i + 1 + k < work.length && work[i + 1 + k] < next.id) k++;
    // No room for them (and for this one) between its neighbours: take the next key out (its
    // index row too) and place it again after this one; until there is room or no next key.
    while (next && next.r - p < (k + 2) * 16) {
      for (const u of UNINDEX) s.run(u, [next.r]);
      const id = next.id;
      let at = i + 1 + k;
      while (at < work.length && work[at] < id) at++;
      work.splice(at, 0, id);
      next = s.get(NEXT, [id, end, K.lo, K.hi]) as { r: number; id: string } | undefined;
      k = 0;
      while (next && i + 1 + k < work.length && work[i + 1 + k] < next.id) k++;
    }
    let r: number;
    if (next) r = p + Math.floor((next.r - p) / (k + 2));
    else if (!prev) r = K.lo + SEARCH_ROWID_FIRST;
    else if (p + SEARCH_ROWID_STEP <= K.hi) r = p + SEARCH_ROWID_STEP;
    else if (p < K.hi) r = p + Math.max(1, Math.floor((K.hi - p) / (work.length - i + 1)));
    else throw new Error(`search index: no rowid left after ${p} for ${kind} mail`);
    s.run(KEY, [r, x]);
  }
  return work;
}

/**
 * Index up to `limit` pending messages (the oldest ids first) and take them off the queue: call
 * inside one write transaction, which makes the index rows and the queue's deletion one commit
 * (a crash leaves both or neither). Every queued id names an existing message without index rows
 * (the triggers of migration 0027 keep it so). Returns how many were taken off the queue.
 */
export function indexPendingBatch(s: SearchIndexStatements, limit: number): number {
  const last = (s.get(LAST, [limit]) as { last: string | null } | undefined)?.last;
  if (!last) return 0;
  const batch = s.all(BATCH, [last]) as { id: string; received: number }[];
  const keyed = [
    ...placeKeys(s, 'sent', batch.filter((b) => !b.received).map((b) => b.id)),
    ...placeKeys(s, 'received', batch.filter((b) => b.received).map((b) => b.id)),
  ];
  const ids = JSON.stringify(keyed);
  for (const rows of ROWS) s.run(rows, [ids]);
  return s.run(DONE, [JSON.stringify(batch.map((b) => b.id))]);
}
