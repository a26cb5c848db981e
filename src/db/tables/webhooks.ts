/** Tables added by the webhooks feature (its migration: migrations/0004_webhooks.ts). */

/** One row per delivery attempt: the delivery history (webhook_deliveries holds the latest state). */
export interface WebhookDeliveryAttemptsTable {
  delivery_id: string;
  attempt_number: number;
  workspace_id: string;
  webhook_endpoint_id: string;
  event_id: string;
  status: string;
  http_status: number | null;
  response_body_excerpt: string | null;
  error: string | null;
  duration_ms: number;
  attempted_at: string;
}

export interface WebhookTables {
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
}

// The delivery queue's claim lease (column added by 0004); merged into the 0001 table type.
declare module '../schema.js' {
  interface WebhookDeliveriesTable {
    lease_until: string | null;
  }
}
