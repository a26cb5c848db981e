/** Tables added by the webhooks feature (its migration: migrations/000N_webhooks.ts). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface WebhookTables {}
