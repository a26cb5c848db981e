import type { Db, AgentsTable, Decoded } from '../schema.js';
import { bool, int, json, paginate, type PageRequest, type PageResult } from '../paginate.js';
import { defineQuery } from '../prepared.js';

export type AgentRow = Decoded<AgentsTable, {
  status: 'active' | 'paused' | 'archived';
  classify_inbound: boolean;
  allowlist_domains: string[];
  blocklist_domains: string[];
}>;

function decode(r: AgentsTable): AgentRow {
  return {
    ...r,
    status: r.status as AgentRow['status'],
    classify_inbound: bool(r.classify_inbound),
    allowlist_domains: json<string[]>(r.allowlist_domains, []),
    blocklist_domains: json<string[]>(r.blocklist_domains, []),
  };
}

function encode(r: Partial<AgentRow>): Partial<AgentsTable> {
  const out: Partial<AgentsTable> = { ...(r as Partial<AgentsTable>) };
  if (r.classify_inbound !== undefined) out.classify_inbound = int(r.classify_inbound);
  if (r.allowlist_domains !== undefined) out.allowlist_domains = JSON.stringify(r.allowlist_domains);
  if (r.blocklist_domains !== undefined) out.blocklist_domains = JSON.stringify(r.blocklist_domains);
  return out;
}

export async function insertAgent(db: Db, row: AgentRow): Promise<void> {
  await db.insertInto('agents').values(encode(row) as AgentsTable).execute();
}

export async function updateAgent(db: Db, id: string, patch: Partial<AgentRow>): Promise<void> {
  await db.updateTable('agents').set(encode(patch)).where('id', '=', id).execute();
}

export async function getAgent(db: Db, workspaceId: string, id: string): Promise<AgentRow | undefined> {
  const r = await db.selectFrom('agents').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return r && decode(r);
}

export async function getAgentById(db: Db, id: string): Promise<AgentRow | undefined> {
  const r = await db.selectFrom('agents').selectAll().where('id', '=', id).executeTakeFirst();
  return r && decode(r);
}

/** All agents of a workspace with this name, oldest first. */
export async function agentsByName(db: Db, workspaceId: string, name: string): Promise<AgentRow[]> {
  const rows = await db.selectFrom('agents').selectAll()
    .where('workspace_id', '=', workspaceId).where('name', '=', name).orderBy('id').execute();
  return rows.map(decode);
}

// Every SMTP recipient is routed by it, at RCPT and again when the message is queued and stored.
const agentWithEmail = defineQuery((db, p: { email: string }) => db.selectFrom('agents').selectAll().where('email', '=', p.email));

export async function agentByEmail(db: Db, email: string): Promise<AgentRow | undefined> {
  const r = await agentWithEmail.first(db, { email: email.toLowerCase() });
  return r && decode(r);
}

export async function listAgents(
  db: Db,
  workspaceId: string,
  filter: { statuses: string[] | null; agentId?: string | null },
  page: PageRequest,
): Promise<PageResult<AgentRow>> {
  let q = db.selectFrom('agents').selectAll().where('workspace_id', '=', workspaceId);
  if (filter.statuses) q = q.where('status', 'in', filter.statuses);
  if (filter.agentId) q = q.where('id', '=', filter.agentId);
  const res = await paginate<AgentsTable>(q, 'id', page, 'agents');
  return { ...res, rows: res.rows.map(decode) };
}

export async function countLiveAgents(db: Db, workspaceId: string): Promise<number> {
  const r = await db.selectFrom('agents').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId).where('status', '!=', 'archived').executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function liveAgents(db: Db, workspaceId: string, max: number): Promise<AgentRow[]> {
  const rows = await db.selectFrom('agents').selectAll()
    .where('workspace_id', '=', workspaceId).where('status', '!=', 'archived').orderBy('id').limit(max).execute();
  return rows.map(decode);
}
