import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { classifyInbound, screenOutbound, reviewAppeal, isQuarantined, CLASSIFIER_MODEL } from '../../../src/classifier/index.js';
import { WEIGHTS } from '../../../src/classifier/weights.js';
import { inbound, NOW } from './helpers.js';

function garbage(seed: number, n: number): string {
  let s = seed;
  let out = '';
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out += String.fromCharCode(s % 3 === 0 ? (s >>> 8) % 0x10000 : (s >>> 8) % 256);
  }
  return out;
}

describe('robustness', () => {
  const inputs = [
    '',
    '\u0000\u0001\u0002',
    garbage(1, 5000),
    garbage(2, 300_000),
    '<'.repeat(100_000),
    '<div style="display:none">'.repeat(5000),
    '<!--'.repeat(10_000),
    '\ud800\udfff\ud800'.repeat(1000),
    'a '.repeat(200_000),
    '$'.repeat(50_000) + '1'.repeat(50_000),
    '+1 (' .repeat(20_000),
    '2025-13-45 99:99 march 99, 2025',
  ];

  it('classifyInbound never throws and always returns a full result', () => {
    for (const s of inputs) {
      for (const c of [
        classifyInbound(inbound({ subject: s.slice(0, 1000), text: s, html: s }), NOW),
        classifyInbound({ from: s, fromName: s, subject: s, text: s, html: s, headers: { 'content-type': s }, classifyIntent: true, history: inbound({ text: '' }).history }),
      ]) {
        expect(typeof c.intent).toBe('string');
        expect(Number.isFinite(c.injection_score)).toBe(true);
        expect(Number.isFinite(c.urgency)).toBe(true);
        expect(c.classifier_model).toBe(CLASSIFIER_MODEL);
        expect(typeof isQuarantined(c)).toBe('boolean');
      }
    }
  });

  it('tolerates missing and wrongly typed fields', () => {
    const bad = { from: null, subject: undefined, text: 42, html: {}, headers: 'x', classifyIntent: true, history: null } as unknown as Parameters<typeof classifyInbound>[0];
    expect(() => classifyInbound(bad)).not.toThrow();
    expect(() => classifyInbound(bad, new Date(NaN))).not.toThrow();
    const badOut = { subject: null, text: 7, html: [], to: 'x', isReply: 'yes' } as unknown as Parameters<typeof screenOutbound>[0];
    expect(() => screenOutbound(badOut)).not.toThrow();
    expect(() => reviewAppeal(badOut)).not.toThrow();
  });

  it('screenOutbound and reviewAppeal never throw', () => {
    for (const s of inputs) {
      const r = screenOutbound({ subject: s.slice(0, 500), text: s, html: s, to: ['a@b.c'], isReply: false });
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(1);
      expect(['allowed', true, false]).toContain(r.blocked);
      expect(['overturned', 'upheld', 'not_appealable', 'not_blocked']).toContain(reviewAppeal({ subject: s.slice(0, 500), text: s, to: ['a@b.c'], isReply: false }).outcome);
    }
  });
});

describe('model identity', () => {
  it('carries a hash of the committed weights in classifier_model', () => {
    // 2.1 adds the injection document model (last) and the graded-hidden option
    const order = ['injection', 'spam', 'request', 'cold', 'injection_doc'] as const;
    // as scripts/train-classifier.ts computes it: the models, then the injection trees, the calibration and the options
    const t = WEIGHTS.trees.injection;
    const treeJson = `{ base: ${t.base}, feat: ${JSON.stringify(t.feat)}, thr: ${JSON.stringify(t.thr)}, left: ${JSON.stringify(t.left)}, right: ${JSON.stringify(t.right)}, val: ${JSON.stringify(t.val)}, roots: ${JSON.stringify(t.roots)} }`;
    const hash = createHash('sha256')
      .update(JSON.stringify(order.map((k) => WEIGHTS.models[k])))
      .update(treeJson)
      .update(JSON.stringify(WEIGHTS.calibration.injection))
      // (2.2 adds ignoreSeparatorRuns, hashed only when on so that older weights keep their hash)
      // (2.6 adds hiddenNeedsInstruction, likewise; 2.7 windowCountCorrection when not 0; 2.10 goalRules; 2.12 foldObfuscation)
      .update(JSON.stringify({ gradedHidden: WEIGHTS.options.injection.gradedHidden, ...((WEIGHTS.options.injection as { ignoreSeparatorRuns?: boolean }).ignoreSeparatorRuns ? { ignoreSeparatorRuns: true } : {}), ...((WEIGHTS.options.injection as { hiddenNeedsInstruction?: boolean }).hiddenNeedsInstruction ? { hiddenNeedsInstruction: true } : {}), ...((WEIGHTS.options.injection as { windowCountCorrection?: number }).windowCountCorrection ? { windowCountCorrection: (WEIGHTS.options.injection as { windowCountCorrection?: number }).windowCountCorrection } : {}), ...((WEIGHTS.options.injection as { windowCountHidden?: boolean }).windowCountHidden ? { windowCountHidden: true } : {}), ...((WEIGHTS.options.injection as { goalRules?: boolean }).goalRules ? { goalRules: true } : {}), ...((WEIGHTS.options.injection as { foldObfuscation?: boolean }).foldObfuscation ? { foldObfuscation: true } : {}) }))
      .digest('hex');
    expect(WEIGHTS.hash).toBe(hash);
    expect(CLASSIFIER_MODEL).toBe(`mailagent-clf-${WEIGHTS.version}+${hash.slice(0, 8)}`);
    expect(CLASSIFIER_MODEL).toMatch(/^mailagent-clf-\d+\.\d+\+[0-9a-f]{8}$/);
  });

  it('ships trained models of a bounded size', () => {
    for (const k of ['injection', 'spam', 'request', 'cold']) {
      const m = WEIGHTS.models[k];
      expect(m, k).toBeDefined();
      expect(m.data.length).toBeGreaterThan(1000);
      expect(m.bits).toBeLessThanOrEqual(18);
    }
  });
});
