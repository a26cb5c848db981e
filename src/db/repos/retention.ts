import { sql } from 'kysely';
import { lockAvailable } from '../dialect.js';
import type { Db } from '../schema.js';
import { deleteReceivedBlobs, forgetSaturatedCounts } from './received.js';
import { deleteSentAttachmentBlobs } from './messages.js';

/**
 * Deletion queries for retention and operator purges (issue #16). Each selects at most `limit`
 * ids and each delete is keyed by those ids, so one batch is one short transaction whatever the
 * table sizes. Send-log rows are never deleted here: sending caps count mail that was sent even
 * after it is gone (spec: Limits).
 */

export interface MessageFilter {
  /** Only messages older than this (ISO timestamp); null: any age. */
  before: string | null;
  /** Only this agent's messages; null: every agent. */
  agentId: string | null;
}

export async function receivedIdsMatching(db: Db, f: MessageFilter, limit: number): Promise<string[]> {
  let q = db.selectFrom('received_messages').select('id');
  if (f.before) q = q.where('received_at', '<', f.before);
  if (f.agentId) q = q.where('agent_id', '=', f.agentId);
  return (await q.orderBy(f.before ? 'received_at' : 'id').limit(limit).execute()).map((r) => r.id);
}

/** Sent messages not waiting for or in the middle of a send (scheduled and sending rows stay). */
export async function sentIdsMatching(db: Db, f: MessageFilter, limit: number): Promise<string[]> {
  let q = db.selectFrom('sent_messages').select('id').where('status', 'not in', ['scheduled', 'sending']);
  if (f.before) q = q.where('created_at', '<', f.before);
  if (f.agentId) q = q.where('agent_id', '=', f.agentId);
  return (await q.orderBy(f.before ? 'created_at' : 'id').limit(limit).execute()).map((r) => r.id);
}

/** Agents holding more than `keep` received (or sent) messages. */
export async function agentsOverCount(db: Db, table: 'received_messages' | 'sent_messages', keep: number): Promise<string[]> {
  const rows = await db.selectFrom(table).select('agent_id').groupBy('agent_id').having(sql`count(*)`, '>', keep).execute();
  return rows.map((r) => r.agent_id);
}

/**
 * The oldest messages of one agent beyond its newest `keep` (ids are time-ordered). The OFFSET
 * here skips the kept rows once per batch through the agent index, a bounded maintenance query,
 * not a page of a list.
 */
export async function excessIds(db: Db, table: 'received_messages' | 'sent_messages', agentId: string, keep: number, limit: number): Promise<string[]> {
  let q = db.selectFrom(table).select('id').where('agent_id', '=', agentId);
  if (table === 'sent_messages') q = q.where('status', 'not in', ['scheduled', 'sending']);
  const boundary = await q.orderBy('id', 'desc').offset(keep).limit(1).executeTakeFirst();
  if (!boundary) return [];
  return (await q.where('id', '<=', boundary.id).orderBy('id').limit(limit).execute()).map((r) => r.id);
}

/**
 * Delete messages with everything stored for them: attachments, raw bytes (a column of the row, and
 * the pieces of large ones: repos/blobs.ts),
 * recipients, Message-ID refs, pending test replies. Threads left with no message become scrubbed
 * tombstones (as a deleted thread does); the others get their message_count recounted.
 * Returns the threads that emptied.
 */
/**
 * Resolves with what this call really deleted: with several daemons (PostgreSQL), another one may
 * have deleted some of these ids first, and those are not counted twice.
 */
export async function deleteMessages(db: Db, receivedIds: string[], sentIds: string[], at: string): Promise<{ received: number; sent: number; emptiedThreads: string[] }> {
  // Rows another daemon's retention pass is deleting right now are skipped, not waited for.
  const sent = await lockAvailable(db, 'sent_messages', 'id', sentIds);
  const received = await lockAvailable(db, 'received_messages', 'id', receivedIds);
  const threadIds = new Set<string>();
  let sentDeleted = 0;
  let receivedDeleted = 0;
  if (sent.length) {
    for (const r of await db.selectFrom('sent_messages').select('thread_id').where('id', 'in', sent).execute()) threadIds.add(r.thread_id);
    await deleteSentAttachmentBlobs(db, sent);
    await db.deleteFrom('sent_attachments').where('message_id', 'in', sent).execute();
    await db.deleteFrom('simulated_replies').where('message_id', 'in', sent).execute();
    await db.deleteFrom('sent_recipients').where('message_id', 'in', sent).execute();
    await db.deleteFrom('message_refs').where('message_id', 'in', sent).execute();
    sentDeleted = Number((await db.deleteFrom('sent_messages').where('id', 'in', sent).executeTakeFirst()).numDeletedRows);
  }
  if (received.length) {
    // Sender counts at their cap may fall now (received.ts senderCounts).
    forgetSaturatedCounts();
    for (const r of await db.selectFrom('received_messages').select('thread_id').where('id', 'in', received).execute()) if (r.thread_id) threadIds.add(r.thread_id);
    await deleteReceivedBlobs(db, received);
    await db.deleteFrom('received_attachments').where('received_message_id', 'in', received).execute();
    await db.deleteFrom('message_refs').where('message_id', 'in', received).execute();
    receivedDeleted = Number((await db.deleteFrom('received_messages').where('id', 'in', received).executeTakeFirst()).numDeletedRows);
  }
  const emptied: string[] = [];
  for (const threadId of threadIds) {
    const s = await db.selectFrom('sent_messages').select((eb) => eb.fn.countAll<number>().as('n')).where('thread_id', '=', threadId).executeTakeFirst();
    const r = await db.selectFrom('received_messages').select((eb) => eb.fn.countAll<number>().as('n')).where('thread_id', '=', threadId).executeTakeFirst();
    const left = Number(s?.n ?? 0) + Number(r?.n ?? 0);
    if (left === 0) {
      emptied.push(threadId);
      await tombstoneThread(db, threadId, at);
    } else {
      await db.updateTable('threads').set({ message_count: left }).where('id', '=', threadId).execute();
    }
  }
  return { received: receivedDeleted, sent: sentDeleted, emptiedThreads: emptied };
}

/** A deleted thread keeps only its id (so it answers 404), nothing of its content. */
export async function tombstoneThread(db: Db, threadId: string, at: string): Promise<void> {
  await db.deleteFrom('message_refs').where('thread_id', '=', threadId).execute();
  await db.updateTable('threads').set({
    subject: '', normalized_subject: '', labels: '[]', participants: '[]', message_count: 0, deleted_at: at, updated_at: at,
  }).where('id', '=', threadId).execute();
}

/** A delivery still owed to its endpoint: never deleted, nor is its event. */
const ACTIVE_DELIVERY = sql<boolean>`(status = 'pending' OR (status = 'failed' AND next_retry_at IS NOT NULL))`;

/** Events older than `before` none of whose webhook deliveries is still owed. */
export async function oldEventIds(db: Db, before: string, limit: number, agentId: string | null = null): Promise<string[]> {
  let q = db.selectFrom('events').select('id').where('created_at', '<', before)
    .where(({ not, exists, selectFrom }) => not(exists(
      selectFrom('webhook_deliveries').select('webhook_deliveries.id').whereRef('webhook_deliveries.event_id', '=', 'events.id').where(ACTIVE_DELIVERY),
    )));
  if (agentId) q = q.where('agent_id', '=', agentId);
  return (await q.orderBy('created_at').limit(limit).execute()).map((r) => r.id);
}

/** Each delete* resolves with the rows of its main table it really deleted (see deleteMessages). */
export async function deleteEvents(db: Db, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  ids = await lockAvailable(db, 'events', 'id', ids); // skip what another daemon is deleting
  if (!ids.length) return 0;
  await db.deleteFrom('webhook_delivery_attempts').where('event_id', 'in', ids).execute();
  await db.deleteFrom('webhook_deliveries').where('event_id', 'in', ids).execute();
  return Number((await db.deleteFrom('events').where('id', 'in', ids).executeTakeFirst()).numDeletedRows);
}

/** Finished webhook deliveries (succeeded, dead-lettered, given up) created before `before`. */
export async function oldDeliveryIds(db: Db, before: string, limit: number): Promise<string[]> {
  return (await db.selectFrom('webhook_deliveries').select('id').where('created_at', '<', before)
    .where(({ not }) => not(ACTIVE_DELIVERY)).orderBy('created_at').limit(limit).execute()).map((r) => r.id);
}

export async function deleteDeliveries(db: Db, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  ids = await lockAvailable(db, 'webhook_deliveries', 'id', ids); // skip what another daemon is deleting
  if (!ids.length) return 0;
  await db.deleteFrom('webhook_delivery_attempts').where('delivery_id', 'in', ids).execute();
  return Number((await db.deleteFrom('webhook_deliveries').where('id', 'in', ids).executeTakeFirst()).numDeletedRows);
}

