/**
 * Tables of connected apps (spec: Authentication → Connected apps), migration 0006_connected_apps.
 * Tokens are stored as SHA-256 hashes only, like API keys.
 */

/** One approval of an app by the workspace (a "sign-in"). */
export interface OauthGrantsTable {
  id: string;
  workspace_id: string;
  app_name: string;
  /** `read`, `send` or `full_access`: the approved access; the token scopes follow from it. */
  access: string;
  /** JSON array of scopes, fixed at approval. */
  scopes: string;
  /** SHA-256 of the one current refresh token; replaced on every refresh (rotation). */
  refresh_token_hash: string;
  /** Who approved it: `operator` (the CLI on the data dir) or the id of the approving key. */
  created_by: string;
  last_used_at: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** Access tokens (`moa_...`), one hour each; several may be valid at once around a refresh. */
export interface OauthAccessTokensTable {
  token_hash: string;
  grant_id: string;
  expires_at: string;
  created_at: string;
}

export interface ConnectedAppTables {
  oauth_grants: OauthGrantsTable;
  oauth_access_tokens: OauthAccessTokensTable;
}
