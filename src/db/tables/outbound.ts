/** Sent messages (spec: Resources → Sent message). JSON columns are text; booleans 0/1. */
export interface SentMessagesTable {
  id: string;
  workspace_id: string;
  agent_id: string;
  thread_id: string;
  api_key_id: string | null;
  test_mode: number;
  /** sending | sent | scheduled | canceled | failed */
  status: string;
  source: string;
  from_address: string;
  from_name: string | null;
  to: string;
  cc: string;
  bcc: string;
  reply_to: string;
  subject: string;
  body_text: string | null;
  body_html: string | null;
  /** 1 when stored with at least one attachment (migration 0031: the `has:attachment` index). */
  has_attachments?: number;
  rfc_message_id: string;
  in_reply_to: string | null;
  references: string;
  in_reply_to_message_id: string | null;
  forwarded_from: string | null;
  metadata: string;
  tags: string;
  classifier_score: number;
  classifier_warning: string | null;
  pool: string | null;
  cost_usd: number;
  transport_message_id: string | null;
  scheduled_at: string | null;
  /** When the scheduler should next try (scheduled_at, or later after a relay outage). */
  due_at: string | null;
  sent_at: string | null;
  delivered_at: string | null;
  canceled_at: string | null;
  error_message: string | null;
  created_at: string;
  updated_at: string;
}

export interface SentAttachmentsTable {
  id: string;
  message_id: string;
  position: number;
  filename: string;
  content_type: string;
  size: number;
  /** The bytes; with content_blob set, empty: they are that blob's pieces (migration 0035). */
  content: Buffer;
  content_blob?: string | null;
}

/** One row per recipient of a counted (live) send: sliding-window caps survive restarts. */
export interface SendLogTable {
  message_id: string;
  recipient: string;
  workspace_id: string;
  agent_id: string;
  at: string;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  request_hash: string;
  /** in_progress | done */
  state: string;
  response_status: number | null;
  response_body: string | null;
  request_id: string | null;
  created_at: string;
}

export interface AppealsTable {
  id: string;
  workspace_id: string;
  agent_id: string | null;
  content_hash: string;
  outcome: string;
  review_score: number | null;
  reason: string | null;
  message: string;
  created_at: string;
}

/**
 * One row per `to` address of a sent message (lower-cased), written with the message: the
 * inbound classifier's "mail we sent to this sender" count is an index lookup, not a scan of
 * sent_messages.to.
 */
export interface SentRecipientsTable {
  message_id: string;
  workspace_id: string;
  address: string;
}

/** Test-address auto-replies waiting for the scheduler. */
export interface SimulatedRepliesTable {
  message_id: string;
  workspace_id: string;
  due_at: string;
  done_at: string | null;
}

export interface OutboundTables {
  sent_messages: SentMessagesTable;
  sent_attachments: SentAttachmentsTable;
  send_log: SendLogTable;
  idempotency_keys: IdempotencyKeysTable;
  appeals: AppealsTable;
  simulated_replies: SimulatedRepliesTable;
  sent_recipients: SentRecipientsTable;
}
