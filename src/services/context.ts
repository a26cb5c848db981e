import { AsyncLocalStorage } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { holdingConnection } from '../db/open.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import type { Event } from '../contract/events.js';
import type { Mode, Scope } from '../contract/common.js';

/** What services need of the configuration (the daemon's Config carries more). */
export interface ServiceConfig {
  /** Agent addresses are <name>@<workspace_slug>.<agentDomain>; the test domain is test.<agentDomain>. */
  agentDomain: string;
  /** Public base URL of this daemon (raw_url, unsubscribe links). */
  publicUrl: string;
  /** Price charged per live message, USD (cost_usd). */
  priceUsdPerMessage: number;
  /** SMTP relay URL for mail to outside addresses, or null (live external sends answer 503). */
  relayUrl: string | null;
  /** Allow webhook URLs on private / loopback addresses. */
  allowPrivateWebhooks: boolean;
  /** Custom sending domains (POST /v1/domains); off → 400 feature_not_enabled. */
  customDomains: boolean;
  dataDir: string;
  version: string;
}

/** In-process notification of committed events (the live stream and the delivery worker listen). */
export class EventBus extends EventEmitter {
  publish(event: Event): void {
    this.emit('event', event);
  }
}

export interface AppContext {
  config: ServiceConfig;
  db: Kysely<Database>;
  clock: Clock;
  log: Logger;
  bus: EventBus;
}

/** The authenticated caller (an API key or a connected app), as every service sees it. */
export interface AuthContext {
  keyId: string;
  workspaceId: string;
  mode: Mode;
  scopes: Scope[];
  agentId: string | null;
  expiresAt: string | null;
  /**
   * Set when the caller is a connected app (an `moa_` access token): the grant id, which is
   * also `keyId`. Spec: Connected apps → some actions answer 403 connected_app_not_allowed.
   */
  connectedAppId?: string | null;
}

/** A unit of work: the transaction plus callbacks to run once it has committed. */
export interface Tx {
  db: Kysely<Database>;
  afterCommit(fn: () => void): void;
}

const currentTx = new AsyncLocalStorage<{ root: Kysely<Database>; tx: Tx }>();
let savepoints = 0;

/**
 * Run fn in one short transaction. An event row, its webhook delivery rows and the change
 * that caused them commit together; bus notifications run only after the commit.
 */
export async function inTransaction<T>(ctx: AppContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  // A service calling another service that opens its own transaction joins the enclosing one
  // (SQLite cannot nest BEGIN) under a savepoint: if the inner work fails, only it is undone
  // (and its afterCommit callbacks dropped); otherwise its callbacks wait for the outer commit.
  const outer = currentTx.getStore();
  if (outer && outer.root === ctx.db) {
    const name = `sp_${++savepoints}`;
    const inner: (() => void)[] = [];
    await sql.raw(`savepoint ${name}`).execute(outer.tx.db);
    try {
      const value = await fn({ db: outer.tx.db, afterCommit: (f) => inner.push(f) });
      await sql.raw(`release savepoint ${name}`).execute(outer.tx.db);
      for (const f of inner) outer.tx.afterCommit(f);
      return value;
    } catch (err) {
      await sql.raw(`rollback to savepoint ${name}`).execute(outer.tx.db);
      await sql.raw(`release savepoint ${name}`).execute(outer.tx.db);
      throw err;
    }
  }
  const after: (() => void)[] = [];
  const result = await ctx.db.transaction().execute(async (trx: Transaction<Database>) => {
    const tx: Tx = { db: trx, afterCommit: (f) => after.push(f) };
    return currentTx.run({ root: ctx.db, tx }, () => holdingConnection(ctx.db, () => fn(tx)));
  });
  for (const f of after) {
    try {
      f();
    } catch (err) {
      ctx.log.error({ err }, 'after-commit callback failed');
    }
  }
  return result;
}
