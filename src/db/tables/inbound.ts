/** Tables added by the inbound feature (its migration: migrations/000N_inbound.ts). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface InboundTables {}
