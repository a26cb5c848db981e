import type { Kysely } from 'kysely';

// Portable DDL only. Thread lists are ordered by last activity (last_message_at, then id):
// these indexes keep that keyset pagination O(page), for the workspace and for one agent.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('threads_workspace_activity').on('threads').columns(['workspace_id', 'last_message_at', 'id']).execute();
  await db.schema.createIndex('threads_agent_activity').on('threads').columns(['agent_id', 'last_message_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('threads_agent_activity').execute();
  await db.schema.dropIndex('threads_workspace_activity').execute();
}
