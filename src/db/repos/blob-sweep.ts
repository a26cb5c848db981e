import type { Db } from '../schema.js';
import { deleteBlobs, yieldTurn } from './blobs.js';
import { draftBlobIds, draftOfBlob, getDraftForSweep } from './drafts.js';

/**
 * Orphaned blob pieces (issue #13 leftovers): on SQLite a large sent attachment's pieces
 * (`sent.<attachment id>`, migration 0035) and a large draft attachment's (`draft.<draft id>.<id>`)
 * are committed by the queue writer's thread before the transaction that names them. A daemon
 * killed between the two commits (or between a draft's change and the deletion of the blobs it no
 * longer names) leaves pieces no row names: they would stay forever, never read, never deleted.
 *
 * The sweep walks those blob ids in order, one index seek per blob (`blob_id > last` — a blob's
 * other pieces are skipped, and a half-deleted blob without its first piece is still found), asks
 * whether its row still names it, and deletes it if not; a turn of the event loop between blobs.
 * It runs once when the daemon opens its database, before it serves a request (server/daemon.ts):
 * no send or draft is then between its two commits, so every unnamed blob is an orphan. Received
 * mail's blobs are written in the transaction that names them, or taken over from the queue row
 * (services/inbound-queue.ts): not swept here.
 */
const KINDS = [
  { prefix: 'sent.', named: sentBlobNamed },
  { prefix: 'draft.', named: draftBlobNamed },
] as const;

/** The blob ids that sort after `after` within `prefix` (ids of one kind share it), the next one. */
async function nextBlobId(db: Db, prefix: string, after: string): Promise<string | undefined> {
  // Every id starting with `prefix` sorts before `prefix` with its last character raised.
  const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  const r = await db.selectFrom('blob_chunks').select('blob_id').where('blob_id', '>', after).where('blob_id', '<', end)
    .orderBy('blob_id').limit(1).executeTakeFirst();
  return r?.blob_id;
}

async function sentBlobNamed(db: Db, blobId: string): Promise<boolean> {
  const r = await db.selectFrom('sent_attachments').select('id').where('id', '=', blobId.slice('sent.'.length))
    .where('content_blob', '=', blobId).executeTakeFirst();
  return r !== undefined;
}

/** A draft blob is named while its draft is live (not deleted, not sent) and its attachments name it. */
async function draftBlobNamed(db: Db, blobId: string): Promise<boolean> {
  const id = draftOfBlob(blobId);
  const r = id ? await getDraftForSweep(db, id) : undefined;
  return !!r && draftBlobIds(r).includes(blobId);
}

export interface SweepResult {
  /** Blobs looked at. */
  checked: number;
  /** Blobs deleted (no row named them). */
  deleted: string[];
}

/** Delete the blob pieces of sent and draft attachments that no stored row names. Only while nothing else writes them. */
export async function sweepOrphanBlobs(db: Db): Promise<SweepResult> {
  const out: SweepResult = { checked: 0, deleted: [] };
  for (const kind of KINDS) {
    for (let at: string = kind.prefix, id; (id = await nextBlobId(db, kind.prefix, at)) !== undefined; at = id) {
      out.checked++;
      if (!(await kind.named(db, id))) {
        await deleteBlobs(db, [id]);
        out.deleted.push(id);
      }
      await yieldTurn();
    }
  }
  return out;
}
