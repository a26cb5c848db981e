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

/**
 * Fail closed (session 13): a classification that did not read all of a message's text — the pool
 * cut it short at its budget and the retry read only a prefix or the subject, or the text ran past
 * what the classifier scans (index.ts MAX_SCAN_CHARS) — must not read as clean, or an agent would
 * take an unscanned injection into a model. Its injection score is raised to the quarantine point
 * and `hidden_content` reported (text the scan could not see); nothing else changes.
 * docs/classifier.md "Session 13 run-time fixes", docs/inbound.md "Processing pipeline".
 */
export function failClosed<C extends Classification>(c: C): C {
  const categories = c.injection_categories.includes('hidden_content') ? c.injection_categories : [...c.injection_categories, 'hidden_content'];
  return { ...c, injection_score: Math.max(c.injection_score, QUARANTINE_THRESHOLD), injection_categories: categories };
}

/** The characters of a send's text attachments the outbound screen reads beside the body. */
export const ATTACHMENT_TEXT_SCREENED = 4096;
