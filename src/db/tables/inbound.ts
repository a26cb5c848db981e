/**
 * Tables added by the inbound feature (migration 0003_inbound). Portable encodings: ISO text
 * timestamps, 0/1 integers, JSON as text, blobs as Buffer (bytea on PostgreSQL).
 */
export interface ReceivedMessagesTable {
  id: string;
  workspace_id: string;
  agent_id: string;
  /** null on over-limit / held-code records (they are not threaded). */
  thread_id: string | null;
  rfc_message_id: string | null;
  in_reply_to: string | null;
  /** JSON string[] of bare Message-IDs. */
  references: string;
  from_address: string;
  from_name: string | null;
  from_domain: string;
  /** JSON string[] (header To / Cc). */
  to: string;
  cc: string;
  /** The envelope recipient this copy was delivered to (RCPT TO, or the agent address). */
  recipient: string;
  /** The recipient when it is a plus variant (`name+tag@domain`), lower-cased; else null. */
  plus_address: string | null;
  subject: string;
  text: string | null;
  html: string | null;
  extracted_text: string | null;
  excerpt: string;
  /** JSON [name, value][] in the order received. */
  headers: string;
  /**
   * The original bytes exactly as received; null on over-limit / held-code records. With
   * raw_blob set, only their head: the rest is that blob's pieces (migration 0018, repos/blobs.ts).
   */
  raw: Buffer | null;
  /** The blob (blob_chunks) holding the raw bytes after `raw`, or null (migration 0018). */
  raw_blob?: string | null;
  size: number;
  /** 1 when stored with at least one attachment (migration 0031: the `has:attachment` index). */
  has_attachments?: number;
  spf_pass: number | null;
  dkim_pass: number | null;
  dmarc: string | null;
  /** The --trusted-networks CIDR of mail accepted without SPF/DKIM checks (migration 0023). */
  trusted_network?: string | null;
  /** JSON classification (spec: Classification) or null on records. */
  classification: string | null;
  quarantined: number;
  test_mode: number;
  /** null | 'plus_address_limit' | 'held_code'. */
  over_limit: string | null;
  /** 'smtp' | 'local' | 'simulator'. */
  source: string;
  /** The sent message (msg_) this one answers, when threading found it. */
  answers_message_id: string | null;
  event_id: string | null;
  event_type: string | null;
  remote_address: string | null;
  received_at: string;
  /** 1 when the pipeline's budget cut parsing or classification short (migration 0010). */
  extraction_truncated: number;
  /** When the mail was first marked read; null while unread (migration 0011). */
  read_at: string | null;
}

export interface ReceivedAttachmentsTable {
  id: string;
  received_message_id: string;
  workspace_id: string;
  position: number;
  filename: string | null;
  content_type: string;
  content_id: string | null;
  disposition: string | null;
  size: number;
  sha256: string;
  /** The bytes; with content_blob set, empty: they are that blob's pieces (migration 0018). */
  content: Buffer;
  content_blob?: string | null;
}

/** Plus addresses that received mail, for the distinct-per-24-hours limit (spec: Limits → Plus addresses). */
export interface InboundPlusAddressesTable {
  workspace_id: string;
  address: string;
  first_received_at: string;
  last_received_at: string;
}

/** SMTP mail acknowledged but not processed yet (migration 0017; services/inbound-queue.ts). */
export interface InboundQueueTable {
  id: string;
  received_at: string;
  mail_from: string;
  /** JSON string[]: the envelope recipients. */
  rcpt_to: string;
  /** JSON {agent_id, message_id}[]: the rcv ids the 250 named. */
  message_ids: string;
  remote_address: string | null;
  helo: string | null;
  /** The message; with raw_blob set, only its head, the rest in that blob (migration 0018). */
  raw: Buffer;
  raw_blob?: string | null;
  lease_until: string | null;
  attempts: number;
  last_error: string | null;
}

/** Pieces of large byte strings, in seq order (migration 0018; repos/blobs.ts). */
export interface BlobChunksTable {
  blob_id: string;
  seq: number;
  data: Buffer;
}

export interface InboundTables {
  received_messages: ReceivedMessagesTable;
  received_attachments: ReceivedAttachmentsTable;
  inbound_plus_addresses: InboundPlusAddressesTable;
  inbound_queue: InboundQueueTable;
  blob_chunks: BlobChunksTable;
}
