import { claimIn } from '../dialect.js';
import type { Db, Decoded, WebhookEndpointsTable, WebhookDeliveriesTable } from '../schema.js';
import type { WebhookDeliveryAttemptsTable } from '../tables/webhooks.js';
import { paginate, bool, int, json, type PageRequest, type PageResult } from '../paginate.js';

export type WebhookEndpointRow = Decoded<WebhookEndpointsTable, { event_types: string[]; active: boolean }>;

function toRow(r: WebhookEndpointsTable): WebhookEndpointRow {
  return { ...r, event_types: json<string[]>(r.event_types, []), active: bool(r.active) };
}

function fromPatch(p: Partial<WebhookEndpointRow>): Partial<WebhookEndpointsTable> {
  const { event_types, active, ...rest } = p;
  return {
    ...rest,
    ...(event_types !== undefined ? { event_types: JSON.stringify(event_types) } : {}),
    ...(active !== undefined ? { active: int(active) } : {}),
  };
}

export async function insertEndpoint(db: Db, r: WebhookEndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values({ ...r, event_types: JSON.stringify(r.event_types), active: int(r.active) }).execute();
}

/** A live (not deleted) endpoint of the workspace. */
export async function getEndpoint(db: Db, workspaceId: string, id: string): Promise<WebhookEndpointRow | undefined> {
  const r = await db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', workspaceId)
    .where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return r && toRow(r);
}

export async function getEndpointById(db: Db, id: string): Promise<WebhookEndpointRow | undefined> {
  const r = await db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toRow(r);
}

export async function listEndpoints(db: Db, workspaceId: string, page: PageRequest): Promise<PageResult<WebhookEndpointRow>> {
  const q = db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', workspaceId).where('deleted_at', 'is', null);
  const res = await paginate<WebhookEndpointsTable>(q, 'id', page, 'webhook endpoints');
  return { ...res, rows: res.rows.map(toRow) };
}

/** Every live endpoint of the workspace (emit time and redelivery pick the subscribed ones). */
export async function allEndpoints(db: Db, workspaceId: string): Promise<WebhookEndpointRow[]> {
  const rows = await db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null).orderBy('id').execute();
  return rows.map(toRow);
}

export async function updateEndpoint(db: Db, id: string, patch: Partial<WebhookEndpointRow>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(fromPatch(patch)).where('id', '=', id).execute();
}

/** Switch off the active endpoints a key made (its revocation, see services/api-keys.ts); their ids. */
export async function pauseEndpointsOfKey(db: Db, keyId: string, reason: string, at: string): Promise<string[]> {
  const rows = await db.updateTable('webhook_endpoints').set({ active: 0, disabled_reason: reason, updated_at: at })
    .where('created_by_key_id', '=', keyId).where('active', '=', 1).where('deleted_at', 'is', null)
    .returning('id').execute();
  return rows.map((r) => r.id);
}

export type DeliveryRow = WebhookDeliveriesTable & { event_type: string };

function deliveriesWithType(db: Db) {
  return db.selectFrom('webhook_deliveries as d').innerJoin('events as e', 'e.id', 'd.event_id')
    .selectAll('d').select('e.type as event_type');
}

/** agentId: a bound key sees only deliveries of events about its own agent (null: every delivery). */
export async function getDelivery(db: Db, workspaceId: string, id: string, agentId: string | null = null): Promise<DeliveryRow | undefined> {
  let q = deliveriesWithType(db).where('d.workspace_id', '=', workspaceId).where('d.id', '=', id);
  if (agentId) q = q.where('e.agent_id', '=', agentId);
  return q.executeTakeFirst();
}

export async function listDeliveries(
  db: Db, endpointId: string, f: { status?: string; eventId?: string; agentId?: string | null }, page: PageRequest,
): Promise<PageResult<DeliveryRow>> {
  let q = deliveriesWithType(db).where('d.webhook_endpoint_id', '=', endpointId);
  if (f.agentId) q = q.where('e.agent_id', '=', f.agentId);
  if (f.status) q = q.where('d.status', '=', f.status);
  if (f.eventId) q = q.where('d.event_id', '=', f.eventId);
  return paginate<DeliveryRow>(q, 'd.id', page, 'webhook deliveries');
}

export async function insertDeliveries(db: Db, rows: WebhookDeliveriesTable[]): Promise<void> {
  if (rows.length) await db.insertInto('webhook_deliveries').values(rows).execute();
}

export async function listAttempts(db: Db, deliveryId: string): Promise<WebhookDeliveryAttemptsTable[]> {
  return db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('attempt_number').execute();
}

/** Retire the queue entries of a deleted endpoint, so the due index stays small. */
export async function retireEndpointDeliveries(db: Db, endpointId: string, at: string): Promise<void> {
  await db.updateTable('webhook_deliveries')
    .set({ status: 'failed', next_retry_at: null, last_error: 'webhook endpoint deleted', updated_at: at })
    .where('webhook_endpoint_id', '=', endpointId).where('status', 'in', ['pending', 'failed']).execute();
}

// ---- the delivery queue (used by the worker)

export interface DueDelivery {
  id: string;
  webhook_endpoint_id: string;
  event_id: string;
  attempt_number: number;
}

/**
 * Deliveries due at `now` whose endpoint is active and not deleted, oldest due first. Paused
 * endpoints' deliveries stay queued untouched until the endpoint is active again. `exclude`:
 * endpoints the caller has no slot for now (their backlog must not fill the page and hide the
 * deliveries of the endpoints it does have a slot for); `only`: just these endpoints.
 */
export async function dueDeliveries(
  db: Db, now: string, limit: number, exclude: readonly string[] = [], only: readonly string[] | null = null,
): Promise<DueDelivery[]> {
  if (only && !only.length) return [];
  let q = db.selectFrom('webhook_deliveries as d').innerJoin('webhook_endpoints as w', 'w.id', 'd.webhook_endpoint_id')
    .select(['d.id', 'd.webhook_endpoint_id', 'd.event_id', 'd.attempt_number'])
    .where('d.status', 'in', ['pending', 'failed'])
    .where('d.next_retry_at', '<=', now)
    .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<=', now)]))
    .where('w.active', '=', 1).where('w.deleted_at', 'is', null);
  if (exclude.length) q = q.where('d.webhook_endpoint_id', 'not in', [...exclude]);
  if (only) q = q.where('d.webhook_endpoint_id', 'in', [...only]);
  return q.orderBy('d.next_retry_at').orderBy('d.id').limit(limit).execute();
}

/**
 * Lease deliveries for an attempt until `leaseUntil`, in one statement; returns the ids won. A
 * delivery another daemon has leased (lease not run out) or is leasing right now (PostgreSQL:
 * row locked, skipped rather than waited for: dialect.ts claimIn) is not won. A daemon killed
 * mid-attempt leaves its lease to run out; the delivery is then due for any daemon.
 */
export async function claimDeliveries(db: Db, ids: string[], now: string, leaseUntil: string): Promise<string[]> {
  if (!ids.length) return [];
  const rows = await db.updateTable('webhook_deliveries').set({ lease_until: leaseUntil })
    .where(claimIn(db, 'id', db.selectFrom('webhook_deliveries').select('id')
      .where('id', 'in', ids).where('status', 'in', ['pending', 'failed'])
      .where((w) => w.or([w('lease_until', 'is', null), w('lease_until', '<=', now)]))))
    .returning('id').execute();
  return rows.map((r) => r.id);
}

export async function releaseDelivery(db: Db, id: string): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ lease_until: null }).where('id', '=', id).execute();
}

export async function giveUpDelivery(db: Db, id: string, error: string, at: string): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ status: 'dlq', last_error: error, next_retry_at: null, lease_until: null, updated_at: at })
    .where('id', '=', id).execute();
}

export async function eventPayload(db: Db, eventId: string): Promise<{ type: string; payload: string } | undefined> {
  return db.selectFrom('events').select(['type', 'payload']).where('id', '=', eventId).executeTakeFirst();
}

export async function recordAttempt(
  db: Db,
  attempt: WebhookDeliveryAttemptsTable,
  delivery: Partial<WebhookDeliveriesTable>,
): Promise<void> {
  await db.insertInto('webhook_delivery_attempts').values(attempt).execute();
  await db.updateTable('webhook_deliveries').set({ ...delivery, lease_until: null }).where('id', '=', attempt.delivery_id).execute();
}
