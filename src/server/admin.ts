import { openDatabase, migrate, isInitialised } from '../db/open.js';
import { systemClock } from '../shared/clock.js';
import { setWorkspaceTier } from '../services/usage.js';
import { connectApp } from '../services/connected-apps.js';
import type { GrantAccess, OauthGrantConnected } from '../contract/oauth.js';
import type { Config } from './config.js';
import { createContext } from './context.js';

/**
 * Operator actions on a local data directory (`mailagent admin ...`), run beside or without a
 * running daemon: SQLite in WAL mode lets both write, and the daemon reads the tier on every check.
 */
export async function setTierInDataDir(config: Config, tier: string): Promise<{ workspace_id: string; from: string; tier: string } | null> {
  const opened = openDatabase(config.database);
  try {
    await migrate(opened.db);
    if (!(await isInitialised(opened.db))) return null;
    return await setWorkspaceTier(createContext(config, opened.db, systemClock), tier);
  } finally {
    await opened.close();
  }
}

/**
 * Approve a connected app on the local data directory (`mailagent admin connect-app`): a
 * self-hosted instance has no dashboard sign-in, so the operator approves (spec: Connected apps).
 */
export async function connectAppInDataDir(config: Config, input: { name: string; access?: GrantAccess }): Promise<OauthGrantConnected | null> {
  const opened = openDatabase(config.database);
  try {
    await migrate(opened.db);
    if (!(await isInitialised(opened.db))) return null;
    return await connectApp(createContext(config, opened.db, systemClock), { ...input, createdBy: 'operator' });
  } finally {
    await opened.close();
  }
}
