import type { Db } from '../schema.js';
import type { InboundQueueTable } from '../tables/inbound.js';
import { defineQuery } from '../prepared.js';
import { deleteBlobs, isLarge, queuedBlobId, readStoredBytes, writeBlob } from './blobs.js';

/** A queued SMTP message (migration 0017), decoded. */
export interface QueuedInbound {
  id: string;
  receivedAt: string;
  mailFrom: string;
  rcptTo: string[];
  messageIds: { agent_id: string; message_id: string }[];
  remoteAddress: string | null;
  helo: string | null;
  /** The message; with rawBlob set, only its head (the rest: readQueuedRaw). */
  raw: Buffer;
  /** The blob (repos/blobs.ts) holding the bytes after `raw`: the queue row's id, or null. */
  rawBlob: string | null;
  attempts: number;
}


const decode = (r: InboundQueueTable): QueuedInbound => ({
  id: r.id, receivedAt: r.received_at, mailFrom: r.mail_from, rcptTo: JSON.parse(r.rcpt_to) as string[],
  messageIds: JSON.parse(r.message_ids) as QueuedInbound['messageIds'], remoteAddress: r.remote_address, helo: r.helo,
  raw: r.raw, rawBlob: r.raw_blob ?? null, attempts: r.attempts,
});

/** The whole message of a queued row (head + blob pieces, read a few at a time: repos/blobs.ts). */
export async function readQueuedRaw(db: Db, q: QueuedInbound): Promise<Buffer> {
  return (await readStoredBytes(db, q.raw, q.rawBlob))!;
}

/** Queue one acknowledged message, held by its writer until `leaseUntil` (null: no lease). */
export async function insertQueued(db: Db, q: Omit<QueuedInbound, 'attempts' | 'rawBlob'>, leaseUntil: string | null): Promise<void> {
  const blob = isLarge(q.raw.length) ? queuedBlobId(q.id) : null;
  if (blob) await writeBlob(db, blob, q.raw);
  await db.insertInto('inbound_queue').values({
    id: q.id, received_at: q.receivedAt, mail_from: q.mailFrom, rcpt_to: JSON.stringify(q.rcptTo),
    message_ids: JSON.stringify(q.messageIds), remote_address: q.remoteAddress, helo: q.helo,
    raw: blob ? Buffer.alloc(0) : q.raw, raw_blob: blob, lease_until: leaseUntil, attempts: 0, last_error: null,
  }).execute();
}

/** Rows by id (those still queued), oldest first. */
export async function queuedByIds(db: Db, ids: string[]): Promise<QueuedInbound[]> {
  if (!ids.length) return [];
  const rows = await db.selectFrom('inbound_queue').selectAll().where('id', 'in', ids).orderBy('id').execute();
  return rows.map(decode);
}

/** Ids of rows free to take (no lease, or an expired one), oldest first. */
export async function claimableIds(db: Db, nowIso: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('inbound_queue').select('id')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', nowIso)]))
    .orderBy('id').limit(limit).execute();
  return rows.map((r) => r.id);
}

/** Take one row until `leaseUntil` if it is free; false when another daemon holds it (or it is gone). */
export async function leaseQueued(db: Db, id: string, nowIso: string, leaseUntil: string): Promise<boolean> {
  const r = await db.updateTable('inbound_queue').set({ lease_until: leaseUntil }).where('id', '=', id)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', nowIso)]))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Every id in the queue, oldest first (a lone daemon's start: all of them are its own). */
export async function allQueuedIds(db: Db): Promise<string[]> {
  return (await db.selectFrom('inbound_queue').select('id').orderBy('id').execute()).map((r) => r.id);
}

export async function countQueued(db: Db): Promise<number> {
  const r = await db.selectFrom('inbound_queue').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Delete a processed row; false if it was not there any more (processed by someone else). Its
 * blob stays (the stored message took it over) unless `withBlob` (nothing was stored).
 */
const deleteQueuedRow = defineQuery((db, p: { id: string }) => db.deleteFrom('inbound_queue').where('id', '=', p.id));

export async function deleteQueued(db: Db, id: string, withBlob = false): Promise<boolean> {
  const gone = (await deleteQueuedRow.run(db, { id })) === 1;
  if (gone && withBlob) await deleteBlobs(db, [queuedBlobId(id)]);
  return gone;
}

/** Processing failed: try again after `retryAt` (the lease doubles as the backoff). */
export async function deferQueued(db: Db, id: string, retryAt: string, error: string): Promise<void> {
  await db.updateTable('inbound_queue').set((eb) => ({ lease_until: retryAt, attempts: eb('attempts', '+', 1), last_error: error.slice(0, 1000) }))
    .where('id', '=', id).execute();
}
