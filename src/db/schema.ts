import type { Kysely } from 'kysely';
import type { OutboundTables } from './tables/outbound.js';
import type { InboundTables } from './tables/inbound.js';
import type { WebhookTables } from './tables/webhooks.js';
import type { ResourceTables } from './tables/resources.js';
import type { ConnectedAppTables } from './tables/connected-apps.js';
import type { WebTables } from './tables/web.js';
import type { ClusterTables } from './tables/cluster.js';

/**
 * Table types. Portable on purpose (SQLite today, PostgreSQL later): timestamps are ISO 8601
 * strings with milliseconds (they sort as text), booleans are 0/1 integers, JSON is text.
 * Repositories convert; nothing outside src/db sees these rows' encodings.
 */
export interface WorkspacesTable {
  id: string;
  slug: string;
  display_name: string;
  tier: string;
  tier_status: string;
  created_at: string;
}

export interface AgentsTable {
  id: string;
  workspace_id: string;
  name: string;
  display_name: string | null;
  email: string;
  domain: string;
  status: string;
  daily_send_limit: number | null;
  hourly_send_limit: number | null;
  classify_inbound: number;
  allowlist_domains: string;
  blocklist_domains: string;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  mode: string;
  scopes: string;
  agent_id: string | null;
  created_by_key_id: string | null;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
}

export interface ThreadsTable {
  id: string;
  workspace_id: string;
  agent_id: string;
  subject: string;
  normalized_subject: string;
  status: string;
  labels: string;
  participants: string;
  message_count: number;
  last_message_at: string;
  /** 1 once any live-mode message is in the thread (live_mode_required rules). */
  has_live: number;
  trashed_at: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** RFC 5322 Message-IDs known to an agent, for threading by In-Reply-To / References. */
export interface MessageRefsTable {
  agent_id: string;
  rfc_message_id: string;
  workspace_id: string;
  message_id: string;
  thread_id: string;
  direction: string;
  created_at: string;
}

export interface EventsTable {
  id: string;
  workspace_id: string;
  agent_id: string | null;
  thread_id: string | null;
  type: string;
  test_mode: number;
  /** The whole event object as the API returns it. */
  payload: string;
  created_at: string;
}

export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  event_types: string;
  description: string | null;
  active: number;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  secret_rotated_at: string | null;
  disabled_reason: string | null;
  created_by_key_id: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** `live` or `test`: the mode of the key that made it (migration 0008). */
  mode: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  workspace_id: string;
  webhook_endpoint_id: string;
  event_id: string;
  attempt_number: number;
  status: string;
  http_status: number | null;
  response_body_excerpt: string | null;
  last_error: string | null;
  next_retry_at: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * Feature areas add their tables in db/tables/<area>.ts and their own migration file
 * (listed in migrations/index.ts).
 */
export interface Database extends OutboundTables, InboundTables, WebhookTables, ResourceTables, ConnectedAppTables, WebTables, ClusterTables {
  workspaces: WorkspacesTable;
  agents: AgentsTable;
  api_keys: ApiKeysTable;
  threads: ThreadsTable;
  message_refs: MessageRefsTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

export type Db = Kysely<Database>;

/**
 * A table's row as its repository returns it: the columns named in D decoded (JSON text to
 * arrays and objects, 0/1 to booleans, text narrowed to its union), the columns in Drop left out
 * (stored under another name), every other column exactly as the table declares it. Repositories
 * derive their row types this way instead of declaring the columns a second time.
 */
export type Decoded<T, D, Drop extends keyof T = never> = Omit<T, keyof D | Drop> & D;
