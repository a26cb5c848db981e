import type { Kysely } from 'kysely';

/**
 * Issue #13 ("no message, however built, holds the main thread for more than 50 ms"), the send
 * side: a sent attachment's bytes were one BLOB column (`sent_attachments.content`), and the one
 * INSERT binding a 25 MB attachment held the daemon's only JavaScript thread for 130–250 ms.
 * `content_blob`: null (the bytes are `content`, as every row stored before this migration), or
 * the blob (`blob_chunks`, migration 0018, db/repos/blobs.ts) whose pieces follow `content`, which
 * then holds nothing. On SQLite the pieces are written by the queue writer's thread before the
 * send's transaction names them (db/repos/messages.ts). Rows already stored stay as they are and
 * read as before: nothing to backfill. Portable DDL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sent_attachments').addColumn('content_blob', 'text').execute();
}

/** Back to one column: each blob's pieces joined into `content` again, then the blobs deleted. */
export async function down(db: Kysely<unknown>): Promise<void> {
  const d = db as unknown as Kysely<{
    sent_attachments: { id: string; content: Uint8Array; content_blob: string | null };
    blob_chunks: { blob_id: string; seq: number; data: Uint8Array };
  }>;
  const rows = await d.selectFrom('sent_attachments').select(['id', 'content', 'content_blob']).where('content_blob', 'is not', null).execute();
  for (const r of rows) {
    const pieces = await d.selectFrom('blob_chunks').select('data').where('blob_id', '=', r.content_blob!).orderBy('seq').execute();
    const content = Buffer.concat([Buffer.from(r.content), ...pieces.map((p) => Buffer.from(p.data))]);
    await d.updateTable('sent_attachments').set({ content }).where('id', '=', r.id).execute();
    await d.deleteFrom('blob_chunks').where('blob_id', '=', r.content_blob!).execute();
  }
  await db.schema.alterTable('sent_attachments').dropColumn('content_blob').execute();
}
