import type { LogEntry, LogQuery } from '../contract/account.js';
import type { PageOf } from '../contract/common.js';
import { listLogs, type LogRow } from '../db/repos/logs.js';
import { insertRequestLogBatches, listRequestLog } from '../db/repos/request-log.js';
import { Errors } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import type { AppContext, AuthContext } from './context.js';
import { hasScope } from './auth.js';
import { resolveAgent } from './agents.js';
import { REQUEST_CATEGORY } from './audit-log.js';
import { pageOf } from '../db/paginate.js';
import { runTransaction, withTransactionKind } from '../db/open.js';
import { pushRequest, requestLogBatchesOf, REQUEST_LOG_VALUES, type RequestLogValues } from '../db/request-log-rows.js';

/** What the HTTP layer reports of an answered request (the rest of RequestLogValues comes from its key). */
export type RequestRecord = Omit<RequestLogValues, 'id' | 'at' | 'workspaceId' | 'agentId' | 'keyId' | 'mode'> & { auth: AuthContext };

/**
 * Request-log rows are buffered and written in one transaction per batch, committed without a
 * flush of their own (db/open.ts CommitSync 'none'), so a GET costs no fsync. A request adds its
 * values to a flat batch (db/request-log-rows.ts: its id and time are taken at once); the stored
 * rows — one per workspace per batch in table `request_log` (migration 0033), not one per request —
 * are built when the batch is written: on SQLite by the inbound queue's writer thread when it
 * runs (AppContext.writeRequestLog), so building and inserting them costs the main thread nothing
 * but handing over one array of primitives. Reads flush first.
 */
const pending = new WeakMap<AppContext, unknown[]>();
const timers = new WeakMap<AppContext, NodeJS.Timeout>();
const FLUSH_AFTER_MS = 250;
const FLUSH_AT_ROWS = 200;

export function recordRequest(ctx: AppContext, r: RequestRecord): void {
  let batch = pending.get(ctx);
  if (!batch) pending.set(ctx, (batch = []));
  pushRequest(batch, {
    id: newId('log', ctx.clock), at: ctx.clock.now(), workspaceId: r.auth.workspaceId, agentId: r.auth.agentId,
    keyId: r.auth.keyId, mode: r.auth.mode, method: r.method, url: r.url, route: r.route, status: r.status,
    requestId: r.requestId, clientAddress: r.clientAddress, userAgent: r.userAgent, durationMs: r.durationMs,
  });
  if (batch.length >= FLUSH_AT_ROWS * REQUEST_LOG_VALUES) {
    void flushRequestLog(ctx);
  } else if (!timers.has(ctx)) {
    const t = setTimeout(() => void flushRequestLog(ctx), FLUSH_AFTER_MS);
    t.unref();
    timers.set(ctx, t);
  }
}

export async function flushRequestLog(ctx: AppContext): Promise<void> {
  const t = timers.get(ctx);
  if (t) clearTimeout(t);
  timers.delete(ctx);
  const batch = pending.get(ctx);
  if (!batch?.length) return;
  pending.set(ctx, []);
  const requests = batch.length / REQUEST_LOG_VALUES;
  try {
    // No client waits for these rows and none was promised them: committed without an fsync of
    // their own (db/open.ts CommitSync 'none').
    // SQLite with the inbound queue's writer thread: its connection writes them, off the main
    // thread; if it cannot, the main connection does.
    if (ctx.writeRequestLog) {
      try {
        await ctx.writeRequestLog(batch);
        return;
      } catch (err) {
        ctx.log.warn({ err, rows: requests }, 'request log: the writer thread could not write; writing on the main connection');
      }
    }
    const rows = requestLogBatchesOf([batch]);
    await withTransactionKind('request_log', () => runTransaction(ctx.db, (trx) => insertRequestLogBatches(trx, rows), 'none'));
  } catch (err) {
    ctx.log.error({ err, rows: requests }, 'request log: could not write');
  }
}

export function toLogEntry(r: LogRow): LogEntry {
  return {
    id: r.id, object: 'log', category: r.category, action: r.action, target_resource_id: r.target_resource_id,
    agent_id: r.agent_id, key_id: r.key_id, metadata: r.metadata, created_at: r.created_at,
  };
}

/**
 * GET /v1/logs. The audit log by default; `category=request` is the request log, which only an
 * unbound key with `manage` may read (spec: Agent-bound keys → 403 on the request log). A bound
 * key sees its own agent's audit entries.
 */
export async function listLogsPage(ctx: AppContext, auth: AuthContext, q: LogQuery): Promise<PageOf<LogEntry>> {
  if (q.category === REQUEST_CATEGORY) {
    if (auth.agentId) throw Errors.insufficientScope('An agent-bound key cannot read the request log; use a key that is not bound to an agent.');
    if (!hasScope(auth, 'manage')) throw Errors.insufficientScope('Reading the request log needs the `manage` scope.');
    await flushRequestLog(ctx);
  }
  const agentId = q.agent_id ? (await resolveAgent(ctx, auth, q.agent_id, 'filter', 'agent_id')).id : auth.agentId;
  const res = q.category === REQUEST_CATEGORY
    ? await listRequestLog(ctx.db, auth.workspaceId, { action: q.action ?? null, agentId }, q)
    : await listLogs(ctx.db, auth.workspaceId, {
      category: q.category ?? null, excludeCategories: [REQUEST_CATEGORY], action: q.action ?? null, agentId,
    }, q);
  const entries = res.rows.map(toLogEntry);
  if (auth.connectedAppId) entries.forEach(withoutClientDetails);
  return pageOf(res, entries);
}

/** Spec: Connected apps — an app sees the request log without IP addresses and browsers. */
function withoutClientDetails(e: LogEntry): void {
  const { client_address: _ip, user_agent: _ua, ...rest } = e.metadata as Record<string, unknown>;
  e.metadata = rest;
}
