import type { PageOf } from '../contract/common.js';
import type { SuppressionEntry, SuppressionCreate, SuppressionEntriesQuery, SuppressionQuery } from '../contract/suppression.js';
import { listSuppressions } from '../db/repos/suppression.js';
import { resolveAgent } from './agents.js';
import {
  activeAllow, getAllow, insertAllow, insertSuppression, listAllows, revokeAllow, suppressionsFor,
  type ConsentAllowRow, type SuppressionRow,
} from '../db/repos/suppression.js';
import { bareAddress } from '../mail/address.js';
import { Errors } from '../shared/errors.js';
import { newId } from '../shared/ids.js';
import { isoAt } from '../shared/clock.js';
import { inTransaction, type AppContext, type AuthContext, type Tx } from './context.js';
import { emitEvent } from './events.js';
import { recordAudit } from './audit-log.js';
import { pageOf } from '../db/paginate.js';
import { requireModeFor } from './auth.js';

export type SuppressionType = 'hard_bounce' | 'complaint' | 'unsubscribe';
/** `workspace`: no agent of the workspace may mail the address; `agent`: only that agent may not. */
export type SuppressionScope = 'workspace' | 'agent';

export interface SuppressionHit {
  id: string;
  type: SuppressionType;
  scope: SuppressionScope;
  agent_id: string | null;
  since: string;
}

/** Addresses are compared case-insensitively (the local part too: what real mailbox providers do). */
export function normalizeAddress(address: string): string {
  // The domain bare too (mail/address.ts): an entry for bob@example.com. blocks bob@example.com.
  return bareAddress(address.toLowerCase());
}

/**
 * The entry that blocks `address` for `agentId`, or null. A consent allow entry lifts every
 * entry made at or before it; an entry made after it (a new bounce or complaint) blocks again.
 */
function effective(entries: SuppressionRow[], allow: ConsentAllowRow | undefined): SuppressionRow | undefined {
  // Ids share one monotonic generator (shared/ids.ts), so their time parts order events exactly
  // even within one millisecond; `sup_` and `alw_` have the same length.
  return entries.find((e) => !allow || e.id.slice(4) > allow.id.slice(4));
}

export type SendMode = 'live' | 'test';

/**
 * The allow entries that count for a send in `mode` (spec: live_mode_required): an entry made
 * with a test key lifts suppressions for test-mode sends only; one made with a live key, for both.
 */
function liftingModes(mode: SendMode): readonly SendMode[] {
  return mode === 'live' ? ['live'] : ['live', 'test'];
}

function hit(e: SuppressionRow): SuppressionHit {
  return { id: e.id, type: e.type as SuppressionType, scope: e.scope as SuppressionScope, agent_id: e.agent_id, since: e.created_at };
}

/**
 * Is `address` suppressed for a send from `agentId` in `mode`? Called on every live send
 * (spec: Send-time → 422 recipient_suppressed). Null when not suppressed or lifted by consent;
 * a live send only counts consent a live key attested.
 */
export async function findSuppression(
  ctx: AppContext, workspaceId: string, agentId: string, address: string, mode: SendMode = 'live', known?: SuppressionRow[],
): Promise<SuppressionHit | null> {
  const addr = normalizeAddress(address);
  // `known`: the caller read the entries of `addr` for `agentId` already (the inbound sender
  // history reads them for its complaint count): the same SELECT is not run twice.
  const entries = known ?? await suppressionsFor(ctx.db, workspaceId, addr, agentId);
  if (!entries.length) return null;
  const e = effective(entries, await activeAllow(ctx.db, workspaceId, addr, liftingModes(mode)));
  return e ? hit(e) : null;
}

export interface AddSuppression {
  workspaceId: string;
  /** The agent whose mail caused it (bounced, complained about, unsubscribed from). */
  agentId: string | null;
  address: string;
  type: SuppressionType;
  /** Default: `agent` for an unsubscribe, `workspace` for bounces and complaints. */
  scope?: SuppressionScope;
  sourceMessageId?: string | null;
  reason?: string | null;
  testMode?: boolean;
  /** The API key that caused it, if any (audit log). */
  keyId?: string | null;
}

/**
 * Record a suppression in the caller's transaction and emit `suppression.added`. Idempotent: an
 * address already blocked for the same scope is not added twice (no second event).
 */
export async function addSuppression(ctx: AppContext, tx: Tx, input: AddSuppression): Promise<{ entry: SuppressionHit; created: boolean }> {
  const address = normalizeAddress(input.address);
  const scope: SuppressionScope = input.scope ?? (input.type === 'unsubscribe' ? 'agent' : 'workspace');
  if (scope === 'agent' && !input.agentId) throw new TypeError('an agent-scoped suppression needs an agent');
  const entries = (await suppressionsFor(tx.db, input.workspaceId, address, input.agentId))
    .filter((e) => e.scope === scope && (scope === 'workspace' || e.agent_id === input.agentId));
  // "Already blocked" is judged as a live send would meet it: a test key's consent lifts nothing live.
  const current = effective(entries, await activeAllow(tx.db, input.workspaceId, address, liftingModes('live')));
  if (current) return { entry: hit(current), created: false };
  const row: SuppressionRow = {
    id: newId('sup', ctx.clock), workspace_id: input.workspaceId, agent_id: input.agentId, scope, address,
    type: input.type, source_message_id: input.sourceMessageId ?? null, reason: input.reason ?? null,
    created_at: isoAt(ctx.clock.now()),
  };
  await insertSuppression(tx.db, row);
  await emitEvent(ctx, tx, {
    type: 'suppression.added', workspaceId: input.workspaceId, agentId: input.agentId,
    sourceMessageId: input.sourceMessageId ?? null, testMode: input.testMode ?? false,
    data: { id: row.id, address, type: row.type, scope, agent_id: row.agent_id, reason: row.reason, created_at: row.created_at },
  });
  await recordAudit(ctx, tx.db, {
    workspaceId: input.workspaceId, category: 'suppression', action: 'suppression.added', targetId: row.id,
    agentId: input.agentId, keyId: input.keyId ?? null, metadata: { address, type: row.type, scope },
  });
  return { entry: hit(row), created: true };
}

// ---- API

export interface SuppressionLookup {
  object: 'suppression_lookup';
  address: string;
  suppressed: boolean;
  type: SuppressionType | null;
  scope: SuppressionScope | null;
  agent_id: string | null;
  since: string | null;
  allowed: { id: string; attestation: string; created_at: string } | null;
}

export interface ConsentAllow {
  id: string;
  object: 'suppression_allow';
  address: string;
  attestation: string;
  created_at: string;
  revoked_at: string | null;
}

export function toAllow(r: ConsentAllowRow): ConsentAllow {
  return { id: r.id, object: 'suppression_allow', address: r.address, attestation: r.attestation, created_at: r.created_at, revoked_at: r.revoked_at };
}

/**
 * compat.md: Suppression lookup. For `agentId` (a bound key's agent, or an `agent_id` filter) the
 * answer is what a send from that agent would meet; without one, any entry of the workspace counts.
 */
export async function lookupSuppression(ctx: AppContext, workspaceId: string, address: string, agentId: string | null, mode: SendMode): Promise<SuppressionLookup> {
  const addr = normalizeAddress(address);
  const entries = await suppressionsFor(ctx.db, workspaceId, addr, agentId);
  // The caller's mode decides which consent counts: a live key is told what a live send meets.
  const allow = await activeAllow(ctx.db, workspaceId, addr, liftingModes(mode));
  const blocking = effective(entries, allow);
  const lifted = entries.length > 0 && !blocking ? entries[0] : undefined;
  const shown = blocking ?? lifted;
  return {
    object: 'suppression_lookup',
    address: addr,
    suppressed: blocking !== undefined,
    type: (shown?.type as SuppressionType | undefined) ?? null,
    scope: (shown?.scope as SuppressionScope | undefined) ?? null,
    agent_id: shown?.agent_id ?? null,
    since: shown?.created_at ?? null,
    allowed: allow ? { id: allow.id, attestation: allow.attestation, created_at: allow.created_at } : null,
  };
}

export const MIN_ATTESTATION = 20;
const EMAIL_RE = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

/** POST /v1/suppression/allow: mail an address again on the caller's attestation of consent. */
export async function allowAddress(ctx: AppContext, auth: AuthContext, body: { address: string; attestation: string }): Promise<ConsentAllow> {
  const address = normalizeAddress(body.address);
  if (!EMAIL_RE.test(address)) {
    throw Errors.invalidParam('address', `"${body.address}" is not an email address.`);
  }
  const attestation = body.attestation.trim();
  if (attestation.length < MIN_ATTESTATION) {
    throw Errors.invalidParam('attestation', `The attestation must say, in at least ${MIN_ATTESTATION} characters, how this person consented to receive mail again.`);
  }
  return inTransaction(ctx, async (tx) => {
    // One active allow per address and mode: a newer attestation replaces the older one of its
    // mode (a test key's entry never displaces, and so never revokes, a live one).
    const existing = await activeAllow(tx.db, auth.workspaceId, address, [auth.mode]);
    const row: ConsentAllowRow = {
      id: newId('alw', ctx.clock), workspace_id: auth.workspaceId, address, attestation,
      created_by_key_id: auth.keyId, created_at: isoAt(ctx.clock.now()), revoked_at: null, mode: auth.mode,
    };
    if (existing) await revokeAllow(tx.db, existing.id, row.created_at);
    await insertAllow(tx.db, row);
    await recordAudit(ctx, tx.db, {
      workspaceId: auth.workspaceId, keyId: auth.keyId, category: 'suppression', action: 'suppression.allowed',
      targetId: row.id, metadata: { address, attestation, ...(existing ? { replaces: existing.id } : {}) },
    });
    return toAllow(row);
  });
}

/** DELETE /v1/suppression/allow/{id}: undo an allow; the suppression it lifted blocks again. */
export async function revokeAllowEntry(ctx: AppContext, auth: AuthContext, id: string): Promise<{ id: string; revoked_at: string }> {
  const row = await getAllow(ctx.db, auth.workspaceId, id);
  if (!row) throw Errors.notFound('suppression allow entry', id);
  requireModeFor(auth, row.mode, `revoke consent allow entry ${row.id}, which a live key made`);
  if (row.revoked_at) return { id: row.id, revoked_at: row.revoked_at };
  const at = isoAt(ctx.clock.now());
  return inTransaction(ctx, async (tx) => {
    await revokeAllow(tx.db, row.id, at);
    await recordAudit(ctx, tx.db, {
      workspaceId: auth.workspaceId, keyId: auth.keyId, category: 'suppression', action: 'suppression.allow_revoked',
      targetId: row.id, metadata: { address: row.address },
    });
    return { id: row.id, revoked_at: at };
  });
}

export async function listAllowPage(ctx: AppContext, auth: AuthContext, q: { limit?: number; cursor?: string; include_revoked?: boolean }): Promise<PageOf<ConsentAllow>> {
  const res = await listAllows(ctx.db, auth.workspaceId, { includeRevoked: q.include_revoked ?? false }, q);
  return pageOf(res, res.rows.map(toAllow));
}

async function toEntries(ctx: AppContext, workspaceId: string, rows: SuppressionRow[], mode: SendMode): Promise<SuppressionEntry[]> {
  const allows = new Map<string, ConsentAllowRow | undefined>();
  for (const a of new Set(rows.map((r) => r.address))) allows.set(a, await activeAllow(ctx.db, workspaceId, a, liftingModes(mode)));
  return rows.map((r) => {
    const allow = allows.get(r.address);
    return {
      id: r.id, object: 'suppression' as const, address: r.address, type: r.type as SuppressionType,
      scope: r.scope as SuppressionScope, agent_id: r.agent_id, source_message_id: r.source_message_id,
      reason: r.reason, active: !allow || r.id.slice(4) > allow.id.slice(4), created_at: r.created_at,
    };
  });
}

/** The agent a suppression read is about: a bound key's own, or an `agent_id` filter. */
async function agentFilter(ctx: AppContext, auth: AuthContext, ref: string | undefined): Promise<string | null> {
  if (ref) return (await resolveAgent(ctx, auth, ref, 'filter', 'agent_id')).id;
  return auth.agentId;
}

/** GET /v1/suppression: `?address=` looks one up; without it, the consent allow entries (compat.md). */
export async function getSuppression(ctx: AppContext, auth: AuthContext, q: SuppressionQuery): Promise<SuppressionLookup | PageOf<ConsentAllow>> {
  const agentId = await agentFilter(ctx, auth, q.agent_id);
  if (q.address !== undefined) return lookupSuppression(ctx, auth.workspaceId, q.address, agentId, auth.mode);
  return listAllowPage(ctx, auth, q);
}

export async function listEntriesPage(ctx: AppContext, auth: AuthContext, q: SuppressionEntriesQuery): Promise<PageOf<SuppressionEntry>> {
  const agentId = await agentFilter(ctx, auth, q.agent_id);
  const res = await listSuppressions(ctx.db, auth.workspaceId, { agentId }, q);
  return pageOf(res, await toEntries(ctx, auth.workspaceId, res.rows, auth.mode));
}

/** POST /v1/suppression: the workspace (or one agent) stops mailing an address. */
export async function createSuppression(ctx: AppContext, auth: AuthContext, body: SuppressionCreate): Promise<SuppressionEntry> {
  const address = normalizeAddress(body.address);
  if (!EMAIL_RE.test(address)) throw Errors.invalidParam('address', `"${body.address}" is not an email address.`);
  // Spec: live_mode_required. A suppression refuses live sends (test sends skip suppression
  // refusals), so an entry a test key made could only change live sending: test keys never
  // change live material (docs/security.md). A test key may still attest consent (allowAddress),
  // whose entry counts for test-mode sends only.
  requireModeFor(auth, 'live', `add a suppression (it refuses live sends to ${address}; test-mode sends skip suppressions)`);
  let agentId: string | null = null;
  if (body.agent_id) agentId = (await resolveAgent(ctx, auth, body.agent_id, 'route', 'agent_id')).id;
  // A bound key's entries are its own agent's: it cannot block mail for the whole workspace.
  else if (auth.agentId) agentId = auth.agentId;
  const { entry } = await inTransaction(ctx, (tx) => addSuppression(ctx, tx, {
    workspaceId: auth.workspaceId, agentId, address, type: body.type ?? 'unsubscribe', scope: agentId ? 'agent' : 'workspace',
    reason: body.reason ?? 'added through the API', testMode: auth.mode === 'test', keyId: auth.keyId,
  }));
  const rows = await suppressionsFor(ctx.db, auth.workspaceId, address, null);
  return (await toEntries(ctx, auth.workspaceId, rows.filter((r) => r.id === entry.id), auth.mode))[0];
}
