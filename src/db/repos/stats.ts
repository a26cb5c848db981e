import type { Db } from '../schema.js';

/** Read-only counts across the mail tables for reputation, usage and metrics. */
export interface CountScope {
  workspaceId: string;
  agentId?: string | null;
  /** true: test mail only; false: live only; null: both. */
  testMode: boolean | null;
  since: string;
  until?: string;
}

const n = (r: { n: unknown } | undefined) => Number(r?.n ?? 0);

export async function countSent(db: Db, s: CountScope, statuses: string[] = ['sent']): Promise<number> {
  let q = db.selectFrom('sent_messages').select((eb) => eb.fn.countAll().as('n'))
    .where('workspace_id', '=', s.workspaceId).where('status', 'in', statuses).where('created_at', '>=', s.since);
  if (s.until) q = q.where('created_at', '<', s.until);
  if (s.agentId) q = q.where('agent_id', '=', s.agentId);
  if (s.testMode !== null) q = q.where('test_mode', '=', s.testMode ? 1 : 0);
  return n(await q.executeTakeFirst());
}

export async function sumSentCost(db: Db, s: CountScope): Promise<number> {
  let q = db.selectFrom('sent_messages').select((eb) => eb.fn.sum<number>('cost_usd').as('n'))
    .where('workspace_id', '=', s.workspaceId).where('created_at', '>=', s.since);
  if (s.until) q = q.where('created_at', '<', s.until);
  if (s.testMode !== null) q = q.where('test_mode', '=', s.testMode ? 1 : 0);
  return n(await q.executeTakeFirst());
}

/** Per-recipient live sends (the unit the caps count; spec: Limits). */
export async function countSendLog(db: Db, workspaceId: string, since: string, until: string): Promise<number> {
  return n(await db.selectFrom('send_log').select((eb) => eb.fn.countAll().as('n'))
    .where('workspace_id', '=', workspaceId).where('at', '>=', since).where('at', '<', until).executeTakeFirst());
}

export async function countReceived(db: Db, s: CountScope, opts: { repliesOnly?: boolean } = {}): Promise<number> {
  let q = db.selectFrom('received_messages').select((eb) => eb.fn.countAll().as('n'))
    .where('workspace_id', '=', s.workspaceId).where('received_at', '>=', s.since).where('over_limit', 'is', null);
  if (s.until) q = q.where('received_at', '<', s.until);
  if (s.agentId) q = q.where('agent_id', '=', s.agentId);
  if (s.testMode !== null) q = q.where('test_mode', '=', s.testMode ? 1 : 0);
  if (opts.repliesOnly) q = q.where('answers_message_id', 'is not', null);
  return n(await q.executeTakeFirst());
}

export async function countEvents(db: Db, s: CountScope, type: string): Promise<number> {
  let q = db.selectFrom('events').select((eb) => eb.fn.countAll().as('n'))
    .where('workspace_id', '=', s.workspaceId).where('type', '=', type).where('created_at', '>=', s.since);
  if (s.until) q = q.where('created_at', '<', s.until);
  if (s.agentId) q = q.where('agent_id', '=', s.agentId);
  if (s.testMode !== null) q = q.where('test_mode', '=', s.testMode ? 1 : 0);
  return n(await q.executeTakeFirst());
}

export async function countDeliveries(db: Db, workspaceId: string, since: string, until: string): Promise<number> {
  return n(await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n'))
    .where('workspace_id', '=', workspaceId).where('status', '=', 'succeeded')
    .where('created_at', '>=', since).where('created_at', '<', until).executeTakeFirst());
}

export async function countThreads(db: Db, workspaceId: string, agentId: string | null): Promise<number> {
  let q = db.selectFrom('threads').select((eb) => eb.fn.countAll().as('n')).where('workspace_id', '=', workspaceId).where('deleted_at', 'is', null);
  if (agentId) q = q.where('agent_id', '=', agentId);
  return n(await q.executeTakeFirst());
}

export async function countDrafts(db: Db, workspaceId: string, agentId: string | null): Promise<number> {
  let q = db.selectFrom('drafts').select((eb) => eb.fn.countAll().as('n')).where('workspace_id', '=', workspaceId).where('deleted_at', 'is', null);
  if (agentId) q = q.where('agent_id', '=', agentId);
  return n(await q.executeTakeFirst());
}

export async function countSuppressed(db: Db, workspaceId: string, agentId: string | null): Promise<number> {
  let q = db.selectFrom('suppressions').select((eb) => eb.fn.count('address').distinct().as('n')).where('workspace_id', '=', workspaceId);
  if (agentId) q = q.where((eb) => eb.or([eb('scope', '=', 'workspace'), eb('agent_id', '=', agentId)]));
  return n(await q.executeTakeFirst());
}

/** Work waiting in the database's queues (metrics): scheduled sends and webhook deliveries still owed. */
export async function queueDepths(db: Db): Promise<{ scheduledSends: number; pendingWebhookDeliveries: number }> {
  // A scheduled send always has a due_at; saying so lets the count use sent_messages_due, which holds only those rows (migration 0028).
  const s = await db.selectFrom('sent_messages').select((eb) => eb.fn.countAll().as('n')).where('status', '=', 'scheduled')
    .where('due_at', 'is not', null).executeTakeFirst();
  const d = await db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll().as('n'))
    .where((eb) => eb.or([eb('status', '=', 'pending'), eb.and([eb('status', '=', 'failed'), eb('next_retry_at', 'is not', null)])]))
    .executeTakeFirst();
  return { scheduledSends: n(s), pendingWebhookDeliveries: n(d) };
}
