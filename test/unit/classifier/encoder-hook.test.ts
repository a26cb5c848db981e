// The evaluation-only `windowExtra` hook of the injection bundle (issue #12:
// measuring a pretrained sentence encoder as one more tree input through the
// real classifyInbound path, scripts/eval-classifier-encoder.ts). Run time
// never sets it; these tests pin what the measurement relies on.
import { describe, expect, it } from 'vitest';
import { injectionInputOf, scanInjection } from '../../../src/classifier/injection.js';
import { injectionBundle } from '../../../src/classifier/model.js';
import { N_FEATURES } from '../../../src/classifier/signals.js';
import { decodeTrees } from '../../../src/classifier/trees.js';

const text = 'Hello Maria,\n\nThe shipment left the warehouse this morning. Please confirm the delivery address.\n\nThanks, Tom';
const inp = injectionInputOf('Shipment update', text, '').input;

describe('windowExtra (evaluation-only encoder hook)', () => {
  it('hands the hook every window as lower-cased text, and changes nothing while the trees do not read the extra column', () => {
    const seen: string[] = [];
    const plain = scanInjection(inp, injectionBundle());
    const hooked = scanInjection(inp, { ...injectionBundle(), windowExtra: (t) => (seen.push(t), 123) });
    expect(hooked.score).toBe(plain.score);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.some((t) => t.includes('please confirm the delivery address'))).toBe(true);
    for (const t of seen) expect(t).toBe(t.toLowerCase());
  });

  it('feeds the hook value to the trees at column N_FEATURES', () => {
    // one stump on the extra column: ≤ 0 → −6, > 0 → +6
    const trees = decodeTrees({ base: 0, feat: [N_FEATURES, -1, -1], thr: [0], left: [1, 0, 0], right: [2, 0, 0], val: [0, -6, 6], roots: [0] });
    const stump = { ...injectionBundle(), trees };
    const low = scanInjection(inp, { ...stump, windowExtra: () => -1 });
    const high = scanInjection(inp, { ...stump, windowExtra: () => 1 });
    expect(high.score).toBeGreaterThan(low.score);
  });
});
