import type {
  WebhookEndpoint, WebhookEndpointWithSecret, WebhookCreate, WebhookUpdate, WebhookRotate, WebhookTestResult,
  WebhookDelivery, WebhookDeliveryWithAttempts, WebhookDeliveryListQuery, WebhookReplayed,
} from '../contract/webhooks.js';
import type { EventRedeliver, EventRedelivered } from '../contract/events.js';
import { CONTENT_FREE_EVENT_TYPES, EVENT_TYPES } from '../contract/events.js';
import type { ListQuery, PageOf } from '../contract/common.js';
import type { WebhookDeliveriesTable } from '../db/schema.js';
import type { WebhookDeliveryAttemptsTable } from '../db/tables/webhooks.js';
import {
  insertEndpoint, getEndpoint, getEndpointById, listEndpoints, allEndpoints, updateEndpoint, getDelivery, listDeliveries,
  insertDeliveries, listAttempts, retireEndpointDeliveries, eventPayload, recordAttempt, releaseDelivery, giveUpDelivery,
  type WebhookEndpointRow, type DeliveryRow, type DueDelivery,
} from '../db/repos/webhooks.js';
import { Errors } from '../shared/errors.js';
import { newId, hasPrefix } from '../shared/ids.js';
import { isoAt, SECOND, MINUTE, HOUR } from '../shared/clock.js';
import { inTransaction, type AppContext, type AuthContext } from './context.js';
import { hasScope, requireModeFor, requireNotConnectedApp } from './auth.js';
import { recordAudit, byKey } from './audit-log.js';
import { endpointWants } from './events.js';
import { getEventById } from './event-queries.js';
import { generateSigningSecret } from './webhook-signing.js';
import { checkWebhookUrl, resolverFor } from './webhook-url-guard.js';
import { postWebhook, type AttemptResult } from './webhook-dispatch.js';
import { pageOf } from '../db/paginate.js';

/** Issue: rotation overlap — the previous secret keeps signing for 24 hours unless told otherwise. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 60 * 60;

/**
 * Delay before attempt n+1 after attempt n failed (n = 1..10): 11 attempts over about three days
 * (30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h, 12 h, 24 h, 24 h = 70 h 42 min), each ±10 % jitter.
 */
export const RETRY_DELAYS_MS = [30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR, 24 * HOUR];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const RETRY_JITTER = 0.1;
/** A Retry-After longer than this is capped (the receiver still gets the rest of its schedule). */
export const MAX_RETRY_AFTER_MS = 24 * HOUR;

export function toEndpoint(r: WebhookEndpointRow, now: number): WebhookEndpoint {
  const overlap = r.previous_secret && r.previous_secret_expires_at && Date.parse(r.previous_secret_expires_at) > now;
  return {
    id: r.id, object: 'webhook_endpoint', url: r.url, event_types: r.event_types, description: r.description,
    active: r.active, disabled_reason: r.disabled_reason, secret_rotated_at: r.secret_rotated_at,
    previous_secret_expires_at: overlap ? r.previous_secret_expires_at : null,
    created_at: r.created_at, updated_at: r.updated_at,
  };
}

/** Secrets to sign with now: the current one, then the previous one while its overlap lasts. */
export function signingSecrets(r: WebhookEndpointRow, now: number): string[] {
  const overlap = r.previous_secret && r.previous_secret_expires_at && Date.parse(r.previous_secret_expires_at) > now;
  return overlap ? [r.secret, r.previous_secret!] : [r.secret];
}

function normalizeEventTypes(list: string[]): string[] {
  const out: string[] = [];
  list.forEach((t, i) => {
    const v = t.trim();
    if (v !== '*' && !(EVENT_TYPES as readonly string[]).includes(v)) {
      throw Errors.invalidParam(`event_types[${i}]`, `"${t}" is not an event type; use "*" or one of: ${EVENT_TYPES.join(', ')}.`);
    }
    if (!out.includes(v)) out.push(v);
  });
  return out;
}

/**
 * Deliveries of most event types carry message content (subjects, bodies, senders, drafts): a
 * key may send them to a URL of its choosing only if it may read that content itself. Without
 * `read`, 403 insufficient_scope naming the scope and the types (CONTENT_FREE_EVENT_TYPES are
 * open to `manage` alone).
 */
function requireReadForContent(auth: AuthContext, eventTypes: readonly string[], what: string): void {
  if (hasScope(auth, 'read')) return;
  const content = eventTypes.filter((t) => !(CONTENT_FREE_EVENT_TYPES as readonly string[]).includes(t));
  if (!content.length) return;
  throw Errors.insufficientScope(
    `To ${what} this key needs the \`read\` scope: deliveries of ${content.map((t) => `"${t}"`).join(', ')} carry message content `
    + `(subjects, bodies, senders). Use a key with \`read\`, or subscribe only to ${CONTENT_FREE_EVENT_TYPES.join(', ')}.`,
  );
}

async function validUrl(ctx: AppContext, raw: string): Promise<string> {
  const url = await checkWebhookUrl(raw, { allowPrivate: ctx.config.allowPrivateWebhooks, resolver: resolverFor(ctx) });
  return url.href;
}

async function requireEndpoint(ctx: AppContext, auth: AuthContext, id: string): Promise<WebhookEndpointRow> {
  const r = hasPrefix(id, 'whe') ? await getEndpoint(ctx.db, auth.workspaceId, id) : undefined;
  if (!r) throw Errors.notFound('webhook endpoint', id);
  return r;
}

/** Wake the delivery worker (new or resumed queue entries that are not events). */
function nudge(ctx: AppContext): void {
  ctx.bus.emit('webhook-deliveries');
}

export async function createWebhook(ctx: AppContext, auth: AuthContext, body: WebhookCreate): Promise<WebhookEndpointWithSecret> {
  requireNotConnectedApp(auth, 'create a webhook');
  const eventTypes = normalizeEventTypes(body.event_types ?? ['*']);
  requireReadForContent(auth, eventTypes, 'subscribe a webhook to these events');
  const url = await validUrl(ctx, body.url);
  const at = isoAt(ctx.clock.now());
  const row: WebhookEndpointRow = {
    id: newId('whe', ctx.clock), workspace_id: auth.workspaceId, url, event_types: eventTypes,
    description: body.description ?? null, active: body.active ?? true, secret: generateSigningSecret(),
    previous_secret: null, previous_secret_expires_at: null, secret_rotated_at: null, disabled_reason: null,
    created_by_key_id: auth.keyId, created_at: at, updated_at: at, deleted_at: null, mode: auth.mode,
  };
  await inTransaction(ctx, async (tx) => {
    await insertEndpoint(tx.db, row);
    await recordAudit(ctx, tx.db, { ...byKey(auth), category: 'webhook', action: 'webhook.created', targetId: row.id, metadata: { url, event_types: eventTypes } });
  });
  return { ...toEndpoint(row, ctx.clock.now()), signing_secret: row.secret };
}

export async function listWebhooksPage(ctx: AppContext, auth: AuthContext, q: ListQuery): Promise<PageOf<WebhookEndpoint>> {
  const res = await listEndpoints(ctx.db, auth.workspaceId, q);
  const now = ctx.clock.now();
  return pageOf(res, res.rows.map((r) => toEndpoint(r, now)));
}

export async function getWebhook(ctx: AppContext, auth: AuthContext, id: string): Promise<WebhookEndpoint> {
  return toEndpoint(await requireEndpoint(ctx, auth, id), ctx.clock.now());
}

export async function updateWebhook(ctx: AppContext, auth: AuthContext, id: string, body: WebhookUpdate): Promise<WebhookEndpoint> {
  if (body.url !== undefined) requireNotConnectedApp(auth, 'change a webhook\'s destination (url)');
  const r = await requireEndpoint(ctx, auth, id);
  requireModeFor(auth, r.mode, `change webhook endpoint ${r.id}, which a live key made`);
  // A new destination or new types send the endpoint's events somewhere new: the same rule as create.
  if (body.url !== undefined || body.event_types !== undefined) {
    const types = body.event_types !== undefined ? normalizeEventTypes(body.event_types) : r.event_types;
    requireReadForContent(auth, types, body.url !== undefined ? `point webhook endpoint ${r.id} at a new URL` : `subscribe webhook endpoint ${r.id} to these events`);
  }
  const patch: Partial<WebhookEndpointRow> = { updated_at: isoAt(ctx.clock.now()) };
  if (body.url !== undefined) patch.url = await validUrl(ctx, body.url);
  if (body.event_types !== undefined) patch.event_types = normalizeEventTypes(body.event_types);
  if (body.description !== undefined) patch.description = body.description;
  if (body.active !== undefined) {
    patch.active = body.active;
    // Resuming clears why the service switched it off (a 410); pausing by hand has no reason.
    patch.disabled_reason = null;
  }
  await inTransaction(ctx, async (tx) => {
    await updateEndpoint(tx.db, r.id, patch);
    const changed = Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined);
    await recordAudit(ctx, tx.db, { ...byKey(auth), category: 'webhook', action: 'webhook.updated', targetId: r.id, metadata: { changed } });
  });
  // What was kept while paused is due now (spec: nothing is delivered until PATCH sets it true).
  if (body.active === true && !r.active) nudge(ctx);
  return toEndpoint({ ...r, ...patch }, ctx.clock.now());
}

export async function deleteWebhook(ctx: AppContext, auth: AuthContext, id: string): Promise<{ id: string; deleted_at: string }> {
  const r = await requireEndpoint(ctx, auth, id);
  requireModeFor(auth, r.mode, `delete webhook endpoint ${r.id}, which a live key made`);
  const at = isoAt(ctx.clock.now());
  await inTransaction(ctx, async (tx) => {
    await updateEndpoint(tx.db, r.id, { deleted_at: at, updated_at: at, active: false });
    await retireEndpointDeliveries(tx.db, r.id, at);
    await recordAudit(ctx, tx.db, { ...byKey(auth), category: 'webhook', action: 'webhook.deleted', targetId: r.id, metadata: { url: r.url } });
  });
  return { id: r.id, deleted_at: at };
}

export async function rotateWebhookSecret(ctx: AppContext, auth: AuthContext, id: string, body: WebhookRotate): Promise<WebhookEndpointWithSecret> {
  requireNotConnectedApp(auth, 'rotate a webhook signing secret');
  const r = await requireEndpoint(ctx, auth, id);
  requireModeFor(auth, r.mode, `rotate the signing secret of webhook endpoint ${r.id}, which a live key made`);
  const now = ctx.clock.now();
  const ttl = body.previous_secret_ttl_seconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS;
  // A second rotation inside the overlap drops the oldest secret: two secrets at most.
  const patch: Partial<WebhookEndpointRow> = {
    secret: generateSigningSecret(),
    previous_secret: ttl > 0 ? r.secret : null,
    previous_secret_expires_at: ttl > 0 ? isoAt(now + ttl * 1000) : null,
    secret_rotated_at: isoAt(now),
    updated_at: isoAt(now),
  };
  await inTransaction(ctx, async (tx) => {
    await updateEndpoint(tx.db, r.id, patch);
    // The secrets themselves never go into the log.
    await recordAudit(ctx, tx.db, { ...byKey(auth), category: 'webhook', action: 'webhook.secret_rotated', targetId: r.id, metadata: { previous_secret_expires_at: patch.previous_secret_expires_at } });
  });
  const next = { ...r, ...patch };
  return { ...toEndpoint(next, now), signing_secret: next.secret };
}

/** POST /v1/webhooks/{id}/test: one signed delivery of a synthetic event, now, answer inline. */
export async function testWebhook(ctx: AppContext, auth: AuthContext, id: string): Promise<WebhookTestResult> {
  const r = await requireEndpoint(ctx, auth, id);
  const now = ctx.clock.now();
  const event = {
    id: newId('evt', ctx.clock), object: 'event', type: 'webhook.test', workspace_id: r.workspace_id,
    agent_id: null, thread_id: null, source_message_id: null, test_mode: true,
    data: { webhook_endpoint_id: r.id, message: 'A test delivery from mailagent; it is not stored as an event.' },
    created_at: isoAt(now),
  };
  const res = await postWebhook(ctx, {
    url: r.url, secrets: signingSecrets(r, now), eventId: event.id, eventType: event.type, deliveryId: null,
    body: JSON.stringify(event),
  });
  return {
    ok: res.ok,
    ...(res.httpStatus !== null ? { http_status: res.httpStatus } : {}),
    ...(res.error ? { error: res.error } : {}),
  };
}

export function toDelivery(d: DeliveryRow): WebhookDelivery {
  return {
    id: d.id, object: 'webhook_delivery', webhook_endpoint_id: d.webhook_endpoint_id, event_id: d.event_id,
    event_type: d.event_type, attempt_number: d.attempt_number, status: d.status as WebhookDelivery['status'],
    http_status: d.http_status, response_body_excerpt: d.response_body_excerpt, error: d.last_error,
    next_retry_at: d.next_retry_at, delivered_at: d.delivered_at, created_at: d.created_at, updated_at: d.updated_at,
  };
}

export async function listWebhookDeliveries(
  ctx: AppContext, auth: AuthContext, id: string, q: WebhookDeliveryListQuery,
): Promise<PageOf<WebhookDelivery>> {
  const r = await requireEndpoint(ctx, auth, id);
  // A key bound to an agent sees only deliveries of that agent's events (spec: Agent-bound keys).
  const res = await listDeliveries(ctx.db, r.id, { status: q.status, eventId: q.event_id, agentId: auth.agentId }, q);
  return pageOf(res, res.rows.map(toDelivery));
}

async function requireDelivery(ctx: AppContext, auth: AuthContext, id: string): Promise<DeliveryRow> {
  const d = hasPrefix(id, 'whd') ? await getDelivery(ctx.db, auth.workspaceId, id, auth.agentId) : undefined;
  if (!d) throw Errors.notFound('webhook delivery', id);
  return d;
}

export async function getWebhookDelivery(ctx: AppContext, auth: AuthContext, id: string): Promise<WebhookDeliveryWithAttempts> {
  const d = await requireDelivery(ctx, auth, id);
  const attempts = await listAttempts(ctx.db, d.id);
  return {
    ...toDelivery(d),
    attempts: attempts.map((a) => ({
      attempt_number: a.attempt_number, status: a.status as 'succeeded' | 'failed', http_status: a.http_status,
      response_body_excerpt: a.response_body_excerpt, error: a.error, duration_ms: a.duration_ms, attempted_at: a.attempted_at,
    })),
  };
}

function newDeliveryRow(ctx: AppContext, workspaceId: string, endpointId: string, eventId: string, at: string): WebhookDeliveriesTable {
  return {
    id: newId('whd', ctx.clock), workspace_id: workspaceId, webhook_endpoint_id: endpointId, event_id: eventId,
    attempt_number: 0, status: 'pending', http_status: null, response_body_excerpt: null, last_error: null,
    next_retry_at: at, delivered_at: null, created_at: at, updated_at: at, lease_until: null,
  };
}

/** Spec: live_mode_required. Sending a live event out again is live material; a test key may resend test events. */
function eventMode(ev: { test_mode: boolean }): 'test' | 'live' {
  return ev.test_mode ? 'test' : 'live';
}

/** A new delivery of the same event to the same endpoint (its own retry schedule; same event id). */
export async function replayDelivery(ctx: AppContext, auth: AuthContext, id: string): Promise<WebhookReplayed> {
  const d = await requireDelivery(ctx, auth, id);
  const ev = await getEventById(ctx, auth, d.event_id);
  requireModeFor(auth, eventMode(ev), `replay delivery ${d.id} of a live event`);
  requireReadForContent(auth, [ev.type], `replay delivery ${d.id}`);
  const endpoint = await getEndpoint(ctx.db, auth.workspaceId, d.webhook_endpoint_id);
  if (!endpoint) throw Errors.notFound('webhook endpoint', d.webhook_endpoint_id);
  const at = isoAt(ctx.clock.now());
  const row = newDeliveryRow(ctx, auth.workspaceId, endpoint.id, d.event_id, at);
  await insertDeliveries(ctx.db, [row]);
  nudge(ctx);
  return { delivery_id: d.id, event_id: d.event_id, scheduled: [row.id], scheduled_at: at };
}

/** POST /v1/events/{id}/redeliver: queue the event again for its subscribed (or the named) endpoints. */
export async function redeliverEvent(ctx: AppContext, auth: AuthContext, id: string, body: EventRedeliver): Promise<EventRedelivered> {
  const ev = await getEventById(ctx, auth, id);
  requireModeFor(auth, eventMode(ev), `redeliver live event ${ev.id}`);
  requireReadForContent(auth, [ev.type], `redeliver event ${ev.id}`);
  const endpoints = await allEndpoints(ctx.db, auth.workspaceId);
  let targets: WebhookEndpointRow[];
  if (body.webhook_endpoint_ids) {
    targets = body.webhook_endpoint_ids.map((wid, i) => {
      const e = endpoints.find((x) => x.id === wid);
      if (!e) throw Errors.invalidParam(`webhook_endpoint_ids[${i}]`, `No webhook endpoint ${wid} exists in this workspace.`);
      return e;
    });
    targets = [...new Map(targets.map((t) => [t.id, t])).values()];
  } else {
    targets = endpoints.filter((e) => endpointWants(e.event_types, ev.type));
  }
  const at = isoAt(ctx.clock.now());
  await insertDeliveries(ctx.db, targets.map((e) => newDeliveryRow(ctx, auth.workspaceId, e.id, ev.id, at)));
  if (targets.length) nudge(ctx);
  return { event_id: ev.id, webhook_endpoint_ids: targets.map((t) => t.id), scheduled_at: at };
}

// ---- the delivery attempt (the worker calls this for each claimed queue entry)

export type AttemptOutcome = 'succeeded' | 'failed' | 'dlq' | 'skipped';

/** When the next attempt is due after `attempts` failed ones, honouring a Retry-After. */
export function nextRetryDelay(attempts: number, retryAfterSeconds: number | null, random = Math.random): number {
  const base = RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1];
  const jittered = Math.round(base * (1 + RETRY_JITTER * (2 * random() - 1)));
  const asked = retryAfterSeconds !== null ? Math.min(retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS) : 0;
  return Math.max(jittered, asked);
}

export interface AttemptRecord {
  attempt: WebhookDeliveryAttemptsTable;
  delivery: Partial<WebhookDeliveriesTable>;
  /** The endpoint to switch off (410 Gone), if any. */
  disableEndpoint: string | null;
  outcome: AttemptOutcome;
}

/**
 * One attempt of a claimed delivery, up to (not including) writing it down: 2xx succeeds; 410
 * switches the endpoint off (the delivery stays queued for when it is switched on again);
 * anything else is retried on the schedule, and after the last attempt the delivery is `dlq`.
 * Returns the outcome when there is nothing to record (skipped, or given up without an attempt).
 */
export async function performAttempt(
  ctx: AppContext, due: DueDelivery, opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<AttemptRecord | AttemptOutcome> {
  const endpoint = await getEndpointById(ctx.db, due.webhook_endpoint_id);
  const ev = await eventPayload(ctx.db, due.event_id);
  if (!endpoint || !endpoint.active || endpoint.deleted_at) {
    await releaseDelivery(ctx.db, due.id); // paused or deleted meanwhile: the queue query skips it now
    return 'skipped';
  }
  if (!ev) {
    await giveUpDelivery(ctx.db, due.id, 'the event no longer exists', isoAt(ctx.clock.now()));
    return 'dlq';
  }
  const res: AttemptResult = await postWebhook(ctx, {
    url: endpoint.url, secrets: signingSecrets(endpoint, ctx.clock.now()), eventId: due.event_id, eventType: ev.type,
    deliveryId: due.id, body: ev.payload,
  }, opts);
  if (res.aborted) {
    await releaseDelivery(ctx.db, due.id);
    return 'skipped';
  }
  const now = ctx.clock.now();
  const at = isoAt(now);
  const attempt = due.attempt_number + 1;
  const gone = res.httpStatus === 410;
  let status: AttemptOutcome;
  let nextRetryAt: string | null;
  if (res.ok) {
    status = 'succeeded';
    nextRetryAt = null;
  } else if (attempt >= MAX_ATTEMPTS) {
    status = 'dlq';
    nextRetryAt = null;
  } else {
    status = 'failed';
    nextRetryAt = gone ? at : isoAt(now + nextRetryDelay(attempt, res.retryAfterSeconds));
  }
  return {
    outcome: status,
    disableEndpoint: gone ? endpoint.id : null,
    attempt: {
      delivery_id: due.id, attempt_number: attempt, workspace_id: endpoint.workspace_id, webhook_endpoint_id: endpoint.id,
      event_id: due.event_id, status: res.ok ? 'succeeded' : 'failed', http_status: res.httpStatus,
      response_body_excerpt: res.excerpt, error: res.error, duration_ms: res.durationMs, attempted_at: at,
    },
    delivery: {
      attempt_number: attempt, status, http_status: res.httpStatus, response_body_excerpt: res.excerpt,
      last_error: res.error, next_retry_at: nextRetryAt, delivered_at: res.ok ? at : null, updated_at: at,
    },
  };
}

/** Write attempts down, several in one transaction (group commit: one fsync for many). */
export async function recordAttempts(ctx: AppContext, records: AttemptRecord[]): Promise<void> {
  if (!records.length) return;
  await inTransaction(ctx, async (tx) => {
    for (const r of records) {
      await recordAttempt(tx.db, r.attempt, r.delivery);
      // 410 Gone: the receiver asks us to stop. Switch the endpoint off; what follows is kept.
      if (r.disableEndpoint) await updateEndpoint(tx.db, r.disableEndpoint, { active: false, disabled_reason: 'gone', updated_at: r.attempt.attempted_at });
    }
  });
}

/** One attempt, recorded at once (the worker batches the recording instead). */
export async function attemptDelivery(
  ctx: AppContext, due: DueDelivery, opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<AttemptOutcome> {
  const r = await performAttempt(ctx, due, opts);
  if (typeof r === 'string') return r;
  await recordAttempts(ctx, [r]);
  return r.outcome;
}
