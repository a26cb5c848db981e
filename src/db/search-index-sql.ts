// The SQLite half of the search index's background work (migration 0027, db/search-index.ts):
// no imports, because the checkpointer's worker thread (db/checkpointer-thread.ts) runs it on its
// own connection and loads nothing it does not need.

/** What a batch needs of a connection: the shape of db/direct.ts DirectStatements. */
export interface SearchIndexStatements {
  get(sql: string, params: readonly unknown[]): unknown;
  run(sql: string, params: readonly unknown[]): number;
}

/**
 * What each kind of mail indexes (FTS5 columns sender, recipients, subject, body), as migrations
 * 0011 and 0018 defined it: received mail's fields cut to their first 100,000 characters
 * (0018: PostgreSQL's mailagent_search_text() limit), sent mail's whole. `m` is the message row.
 */
const COLUMNS = {
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

const LAST = 'SELECT max(message_id) AS last FROM (SELECT message_id FROM message_search_pending ORDER BY message_id LIMIT ?)';
const KEYS = 'INSERT INTO message_search_keys (message_id) SELECT message_id FROM message_search_pending WHERE message_id <= ? ORDER BY message_id';
const ROWS = Object.entries(COLUMNS).map(([table, cols]) => `INSERT INTO message_search (rowid, sender, recipients, subject, body)
  SELECT k.search_rowid, ${cols.join(', ')}
  FROM message_search_pending p JOIN ${table} m ON m.id = p.message_id JOIN message_search_keys k ON k.message_id = p.message_id
  WHERE p.message_id <= ?`);
const DONE = 'DELETE FROM message_search_pending WHERE message_id <= ?';

/**
 * Index up to `limit` pending messages (the oldest ids first) and take them off the queue: call
 * inside one write transaction, which makes the index rows and the queue's deletion one commit
 * (a crash leaves both or neither). Every queued id names an existing message without index rows
 * (the triggers of migration 0027 keep it so). Returns how many were indexed.
 */
export function indexPendingBatch(s: SearchIndexStatements, limit: number): number {
  const last = (s.get(LAST, [limit]) as { last: string | null } | undefined)?.last;
  if (!last) return 0;
  s.run(KEYS, [last]);
  for (const rows of ROWS) s.run(rows, [last]);
  return s.run(DONE, [last]);
}
