import type { Db } from '../schema.js';
import type { Event } from '../../contract/events.js';

/** Our sent message with one of these RFC Message-IDs, as the agent's thread refs know it (indexed by the refs key). */
export async function outboundRef(db: Db, agentId: string, rfcIds: string[]): Promise<string | undefined> {
  if (!rfcIds.length) return undefined;
  const rows = await db.selectFrom('message_refs').select(['rfc_message_id', 'message_id'])
    .where('agent_id', '=', agentId).where('rfc_message_id', 'in', rfcIds).where('direction', '=', 'outbound').execute();
  for (const id of rfcIds) {
    const hit = rows.find((r) => r.rfc_message_id === id);
    if (hit) return hit.message_id;
  }
  return undefined;
}

/** Events of one type already recorded about one sent message (duplicate reports are not counted twice). */
export async function eventsAboutMessage(db: Db, workspaceId: string, type: string, messageId: string): Promise<Event[]> {
  const rows = await db.selectFrom('events').select('payload')
    .where('workspace_id', '=', workspaceId).where('type', '=', type)
    .where('payload', 'like', `%"source_message_id":${JSON.stringify(messageId)}%`).execute();
  return rows.map((r) => JSON.parse(r.payload) as Event);
}
