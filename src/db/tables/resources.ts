/**
 * Tables of the resources feature: suppression and consent, labels, drafts, sending domains,
 * the audit and request log, and per-instance settings (migration 0005_resources).
 */

/** One suppression entry. `agent_id` null = the whole workspace (bounces, complaints). */
export interface SuppressionsTable {
  id: string;
  workspace_id: string;
  agent_id: string | null;
  /** `workspace` or `agent`. */
  scope: string;
  /** Lower-cased address. */
  address: string;
  /** `hard_bounce`, `complaint` or `unsubscribe`. */
  type: string;
  source_message_id: string | null;
  reason: string | null;
  created_at: string;
}

/** Consent allowlist: an attested address may be mailed again despite older suppression entries. */
export interface ConsentAllowsTable {
  id: string;
  workspace_id: string;
  address: string;
  attestation: string;
  created_by_key_id: string | null;
  created_at: string;
  revoked_at: string | null;
  /** `live` or `test`: the mode of the key that made it (migration 0015). */
  mode: string;
}

export interface LabelsTable {
  id: string;
  workspace_id: string;
  name: string;
  created_at: string;
  updated_at: string;
}

export interface DraftsTable {
  id: string;
  workspace_id: string;
  agent_id: string;
  created_by_key_id: string | null;
  /** `live` or `test`: the mode of the key that made it (live_mode_required rules). */
  mode: string;
  to_addrs: string;
  cc: string;
  bcc: string;
  subject: string;
  body_text: string | null;
  body_html: string | null;
  tags: string;
  metadata: string;
  /** Extra send-request fields (attachments, reply_to, ...) kept verbatim as JSON. */
  extra: string;
  status: string;
  send_at: string | null;
  sent_message_id: string | null;
  thread_id: string | null;
  error_message: string | null;
  sending_started_at: string | null;
  /** When the scheduler tries again after a retryable refusal (429, 503); null: at send_at. */
  next_attempt_at: string | null;
  sent_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface DomainsTable {
  id: string;
  workspace_id: string;
  domain: string;
  /** `pending`, `verified` or `failed`. */
  status: string;
  verification_token: string;
  dkim_selector: string;
  /** PKCS#8 PEM; needed to sign, never returned by the API. */
  dkim_private_key: string;
  /** base64 SubjectPublicKeyInfo, as published in the DKIM TXT record (p=). */
  dkim_public_key: string;
  records_status: string;
  verified_at: string | null;
  last_checked_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  /** `live` or `test`: the mode of the key that added it (migration 0008). */
  mode: string;
}

/** Audit entries and the request log share one list (category `request` is the request log). */
export interface LogsTable {
  id: string;
  workspace_id: string;
  category: string;
  action: string;
  target_resource_id: string | null;
  agent_id: string | null;
  key_id: string | null;
  metadata: string;
  created_at: string;
}

/**
 * The request log (GET /v1/logs?category=request), one row per workspace per written batch of
 * entries (migration 0033; db/request-log-rows.ts says what each column holds).
 */
export interface RequestLogTable {
  workspace_id: string;
  first_id: string;
  last_id: string;
  min_created_at: string;
  max_created_at: string;
  entry_count: number;
  actions: string;
  agents: string;
  entries: string;
}

/** Per-instance values made once (the unsubscribe signing secret). */
export interface InstanceSettingsTable {
  name: string;
  value: string;
  created_at: string;
}

export interface ResourceTables {
  suppressions: SuppressionsTable;
  consent_allows: ConsentAllowsTable;
  labels: LabelsTable;
  drafts: DraftsTable;
  domains: DomainsTable;
  logs: LogsTable;
  request_log: RequestLogTable;
  instance_settings: InstanceSettingsTable;
}
