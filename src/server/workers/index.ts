import type { AppContext } from '../../services/context.js';

/** A background loop: start() begins it, stop() ends it and waits for work in flight. */
export interface Worker {
  name: string;
  start(): void;
  stop(): Promise<void>;
}

/** Every background worker of the daemon; feature issues add theirs here. */
export function createWorkers(_ctx: AppContext): Worker[] {
  return [];
}
