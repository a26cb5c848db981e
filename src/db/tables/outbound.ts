/** Tables added by the outbound feature (its migration: migrations/000N_outbound.ts). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface OutboundTables {}
