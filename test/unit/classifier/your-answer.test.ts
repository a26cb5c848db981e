// Classifier 2.14 (issue #12, session 13): mail between people about the reader's answers,
// responses or output (your-answer.fixture.ts). The shipped classifier quarantines 6 of these 72
// scores (a known false-positive class, docs/classifier.md "Classifier 2.14 — injection side",
// section 5); this pins that it gets no worse. The measured answerRule candidate (2.14c, off by
// default) quarantined 21 of them and was not shipped.
import { describe, expect, it } from 'vitest';
import { QUARANTINE_THRESHOLD, classifyInbound } from '../../../src/classifier/index.js';
import { injectionBundle, setInjectionOverride } from '../../../src/classifier/model.js';
import { inbound, NOW } from './helpers.js';
import { YOUR_ANSWER_BENIGN } from './your-answer.fixture.js';

const wrap = (s: string) => `Hi Alex,\n\nthanks for joining on Tuesday. ${s}\n\nBest,\nJordan`;
const quarantined = () => {
  let n = 0;
  for (const s of YOUR_ANSWER_BENIGN) for (const t of [s, wrap(s)]) if (classifyInbound(inbound({ classifyIntent: false, text: t }), NOW).injection_score >= QUARANTINE_THRESHOLD) n++;
  return n;
};

describe('mail about the reader\'s own answers (2.14 check set)', () => {
  it('the shipped classifier quarantines no more of them than at 2.14 (6 of 72), and answerRule stays off', () => {
    expect(YOUR_ANSWER_BENIGN.length * 2).toBe(72);
    expect(injectionBundle().answerRule).not.toBe(true);
    expect(quarantined()).toBeLessThanOrEqual(6);
  });

  it('the measured answerRule candidate quarantines more of them (why it was not shipped)', () => {
    setInjectionOverride({ ...injectionBundle(), answerRule: true });
    try {
      expect(quarantined()).toBeGreaterThan(6);
    } finally {
      setInjectionOverride(null);
    }
  });
});
