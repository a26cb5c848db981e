/** Tables added by the resources feature (its migration: migrations/000N_resources.ts). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ResourceTables {}
