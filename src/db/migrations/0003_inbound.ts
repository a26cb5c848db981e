import type { Kysely } from 'kysely';

// Filled in by its feature issue; an empty migration keeps the order fixed meanwhile.
export async function up(_db: Kysely<unknown>): Promise<void> {}
