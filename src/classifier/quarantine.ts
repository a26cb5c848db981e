import type { Classification } from './index.js';

// The quarantine rule, apart from the models: the daemon's main thread decides quarantine on a
// classification its pool workers computed, and must not load the weights for it; and the one limit
// of the outbound screen's input the main thread applies when it builds that input (index.ts
// re-exports both; test/unit/server/thread-modules.test.ts checks the main thread's imports).

/** injection_score at or above this quarantines the event (compat.md: hosted docs name 0.95). */
export const QUARANTINE_THRESHOLD = 0.95;

export function isQuarantined(c: Classification): boolean {
  return typeof c?.injection_score === 'number' && c.injection_score >= QUARANTINE_THRESHOLD;
}

/** The characters of a send's text attachments the outbound screen reads beside the body. */
export const ATTACHMENT_TEXT_SCREENED = 4096;
