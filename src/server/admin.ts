import { openDatabase, migrate, isInitialised } from '../db/open.js';
import { systemClock } from '../shared/clock.js';
import { setWorkspaceTier } from '../services/usage.js';
import type { Config } from './config.js';
import { createContext } from './context.js';

/**
 * Operator actions on a local data directory (`mailagent admin ...`), run beside or without a
 * running daemon: SQLite in WAL mode lets both write, and the daemon reads the tier on every check.
 */
export async function setTierInDataDir(config: Config, tier: string): Promise<{ workspace_id: string; from: string; tier: string } | null> {
  const opened = openDatabase(config.dbFile);
  try {
    await migrate(opened.db);
    if (!(await isInitialised(opened.db))) return null;
    return await setWorkspaceTier(createContext(config, opened.db, systemClock), tier);
  } finally {
    await opened.close();
  }
}
