import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { EventBus, type AppContext } from '../services/context.js';
import type { Clock } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/log.js';
import type { Config } from './config.js';

export function createContext(config: Config, db: Kysely<Database>, clock: Clock, log: Logger = silentLogger): AppContext {
  const bus = new EventBus();
  bus.setMaxListeners(0); // every live-stream subscriber listens
  return { config, db, clock, log, bus };
}
