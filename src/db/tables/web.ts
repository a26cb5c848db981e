/**
 * Web inbox sign-in (migration 0011_search_and_web). Tokens are stored as SHA-256 only.
 * The full-text index (`message_search`, `message_search_keys`) is SQLite-specific and is not
 * typed here: only `repos/search.ts` queries it.
 */
export interface WebSessionsTable {
  id: string;
  token_hash: string;
  /** `link`: a one-time sign-in link, spent on first use; `session`: a signed-in browser. */
  kind: string;
  workspace_id: string;
  /** The API key the session acts as (its scopes, mode and agent binding). */
  api_key_id: string;
  /** Sessions: the anti-CSRF token the page must echo in X-CSRF-Token on state changes. */
  csrf_token: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface WebTables {
  web_sessions: WebSessionsTable;
}
