import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../contract/errors.js';
import type { RouteDef } from '../../contract/route.js';
import { announceWrite, type AppContext, type AuthContext, type WriteAnnouncement } from '../../services/context.js';
import { beginIdempotent, finishIdempotent, requestFingerprint } from '../../services/idempotency.js';
import { withTransactionKind } from '../../db/open.js';
import { takeBurstSlot, BURST_LIMIT, BURST_WINDOW_MS, type RateLimitState } from '../../services/limits.js';

function rateHeaders(reply: FastifyReply, s: RateLimitState): void {
  // IETF draft-ietf-httpapi-ratelimit-headers: policy "<limit>;w=<window seconds>".
  reply.header('ratelimit-policy', `${BURST_LIMIT};w=${BURST_WINDOW_MS / 1000}`);
  reply.header('ratelimit-limit', String(s.limit));
  reply.header('ratelimit-remaining', String(s.remaining));
  reply.header('ratelimit-reset', String(s.resetSeconds));
}

/**
 * What every send route (RouteDef.send) shares: the burst limit with RateLimit-* headers, and
 * Idempotency-Key handling (spec: Messages; compat.md: Idempotent-Replay). A replay returns the
 * stored status and body with the original X-Request-Id; 429 and 5xx outcomes are not stored.
 */
export async function runSendRoute(
  ctx: AppContext, id: string, def: RouteDef, req: FastifyRequest, reply: FastifyReply, run: (announced: WriteAnnouncement) => Promise<unknown>,
): Promise<unknown> {
  const auth = (req as FastifyRequest & { auth?: AuthContext }).auth!;
  // The send's transaction is committed together with concurrent ones (group commit,
  // services/context.ts): announcing it lets a batch being formed wait for it. The handler hands
  // the announcement to the send's first groupedTransaction, which releases it once queued; a
  // refusal before that (or a route that has none) releases it here.
  // Transactions are counted by kind (db/open.ts, PostgreSQL): the idempotency records, the burst slot, the send.
  const announced = announceWrite(ctx);
  try {
    return await withTransactionKind('send.idempotency', () => sendRoute(ctx, id, def, req, reply, () => run(announced), auth));
  } finally {
    announced.release();
  }
}

async function sendRoute(
  ctx: AppContext, id: string, def: RouteDef, req: FastifyRequest, reply: FastifyReply, run: () => Promise<unknown>, auth: AuthContext,
): Promise<unknown> {
  try {
    rateHeaders(reply, await withTransactionKind('send.burst', () => takeBurstSlot(ctx, auth)));
  } catch (err) {
    const state = (err as { rateLimit?: RateLimitState }).rateLimit;
    if (state) rateHeaders(reply, state);
    throw err;
  }
  // The fingerprint (a walk of the whole body) is computed only when a key is present.
  const begin = await beginIdempotent(ctx, auth, req.headers['idempotency-key'], () => requestFingerprint(id, req.params, req.body));
  if (begin.kind === 'replay') {
    const r = begin.response;
    reply.code(r.status).header('idempotent-replay', 'true').type('application/json');
    if (r.requestId) reply.header('x-request-id', r.requestId);
    return reply.send(r.body);
  }
  if (begin.kind === 'none') return withTransactionKind('send', run);
  try {
    const result = await withTransactionKind('send', run);
    const status = reply.statusCode === 200 && def.status !== 200 ? def.status : reply.statusCode;
    await finishIdempotent(ctx, begin, { status, body: JSON.stringify(result), requestId: String(req.id) });
    return result;
  } catch (err) {
    const status = err instanceof ApiError ? err.status : 500;
    const body = err instanceof ApiError ? JSON.stringify(err.toEnvelope(String(req.id))) : '';
    await finishIdempotent(ctx, begin, { status, body, requestId: String(req.id) });
    throw err;
  }
}
