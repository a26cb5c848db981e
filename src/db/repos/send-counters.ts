import type { Db } from '../schema.js';
import type { SendLogTable } from '../tables/outbound.js';

/** Per-recipient send log behind the sliding-window caps (spec: Limits). */
export type SendLogEntry = SendLogTable;

export async function insertSendLog(db: Db, rows: SendLogEntry[]): Promise<void> {
  if (rows.length) await db.insertInto('send_log').values(rows).onConflict((oc) => oc.doNothing()).execute();
}

export async function deleteSendLog(db: Db, messageId: string): Promise<void> {
  await db.deleteFrom('send_log').where('message_id', '=', messageId).execute();
}

export type Scope = { workspaceId: string } | { agentId: string };

function scoped(db: Db, s: Scope, since: string) {
  const q = db.selectFrom('send_log').where('at', '>', since);
  return 'agentId' in s ? q.where('agent_id', '=', s.agentId) : q.where('workspace_id', '=', s.workspaceId);
}

export async function countSince(db: Db, s: Scope, since: string): Promise<number> {
  const r = await scoped(db, s, since).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The time of the n-th oldest entry (1-based) in the window: when it leaves, n slots free up. */
export async function nthOldestSince(db: Db, s: Scope, since: string, n: number): Promise<string | null> {
  const r = await scoped(db, s, since).select('at').orderBy('at').limit(1).offset(Math.max(0, n - 1)).executeTakeFirst();
  return r?.at ?? null;
}

/** Each distinct recipient in the window with the last time it was mailed, oldest first. */
export async function distinctRecipientsSince(db: Db, workspaceId: string, since: string): Promise<{ recipient: string; last: string }[]> {
  const rows = await db.selectFrom('send_log').select(['recipient', (eb) => eb.fn.max('at').as('last')])
    .where('workspace_id', '=', workspaceId).where('at', '>', since).groupBy('recipient').orderBy('last').execute();
  return rows.map((r) => ({ recipient: r.recipient, last: String(r.last) }));
}
