// Classifier 2.8 (issue #12, session 8): the assistant-goal training set
// (assistant-goals.jsonl) and its place in the recipe — training only, never
// in the leave-one-source-out sets, left out when the own source is held out —
// and the fold-model cache the analysis script and the training run share.
// docs/classifier.md "Classifier 2.8" has the measurements.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { dataDir, ownDataDir } from '../../../scripts/lib-classifier/data.js';
import { assistantGoals, attackSources, benignPayloads } from '../../../scripts/lib-classifier/loso.js';
import { evalSets, trainingMessages, messageWindows, RECIPES, SHIPPED_RECIPE, type Recipe } from '../../../scripts/lib-classifier/recipe-v2.js';
import { foldKey } from '../../../scripts/lib-classifier/fold-cache.js';
import { trainLR, type TrainItem } from '../../../scripts/lib-classifier/lr.js';

interface Rec { id: string; group: string; label: 0 | 1; kind: string; action?: string; text: string }
const recs = (): Rec[] =>
  readFileSync(path.join(ownDataDir, 'assistant-goals.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);

describe('assistant-goals.jsonl (2.8)', () => {
  it('holds attacks by goal and benign counterparts, each group on one label, ids unique', () => {
    const r = recs();
    const attacks = r.filter((x) => x.label === 1);
    const benign = r.filter((x) => x.label === 0);
    expect(attacks.length).toBeGreaterThanOrEqual(250);
    expect(benign.length).toBeGreaterThanOrEqual(60);
    expect(new Set(r.map((x) => x.id)).size).toBe(r.length);
    const label = new Map<string, number>();
    for (const x of r) {
      if (label.has(x.group)) expect(label.get(x.group)).toBe(x.label);
      label.set(x.group, x.label);
    }
    // every goal of the threat model is there, not only exfiltration
    const goals = new Set(attacks.map((x) => x.action));
    for (const g of ['assistant/summary', 'assistant/reply', 'assistant/insert_link', 'assistant/language', 'assistant/classify', 'assistant/task_hijack', 'assistant/forward_mail', 'assistant/reveal_secrets']) expect(goals.has(g)).toBe(true);
    // many attacks name no AI at all and use no override words
    const plain = attacks.filter((x) => !/\b(ai|assistant|model|bot|agent|copilot|gemini|chatgpt|ignore|disregard)\b/i.test(x.text));
    expect(plain.length).toBeGreaterThan(30);
  });
});

// (needs the public corpora in ../shared/data, beside the repository: skipped without them)
describe.skipIf(!existsSync(dataDir))('the 2.8 recipe options', () => {
  const r28: Recipe = RECIPES['2.8a'];

  it('the set is training data only: not among the attack sources, the benign payloads or the evaluation sets', () => {
    const texts = new Set(assistantGoals().map((p) => p.text));
    for (const list of attackSources().values()) expect(list.some((p) => texts.has(p.text))).toBe(false);
    expect(benignPayloads().some((p) => texts.has(p.text))).toBe(false);
    const sets = evalSets(5);
    expect(sets.negatives.some((m) => m.payload !== undefined && texts.has(m.payload))).toBe(false);
    for (const p of sets.positives.values()) expect([...p.written, ...p.embedded].some((m) => m.payload !== undefined && texts.has(m.payload))).toBe(false);
  });

  it('is trained on only with the option, and never in the fold that holds out the own source', () => {
    const texts = new Set(assistantGoals().map((p) => p.text));
    const ours = (rec: Recipe, hold: 'deepset' | 'own') => trainingMessages(hold, rec).filter((m) => m.payload !== undefined && texts.has(m.payload));
    expect(ours(RECIPES['2.7'], 'deepset').length).toBe(0);
    const used = ours(r28, 'deepset');
    expect(used.filter((m) => m.label === 1).length).toBe(300 * 4); // as written + 3 positions
    expect(used.filter((m) => m.label === 0).length).toBe(68 * 7); // as written + all six positions
    expect(ours(r28, 'own').length).toBe(0);
  });

  it('negWindowsPerMessage keeps more windows of a long benign message, and no more of an attack', () => {
    const long = { subject: 'Weekly notes', text: Array.from({ length: 30 }, (_, i) => `Point ${i + 1}: the budget review for the spring quarter moves to room ${i + 3}.`).join('\n\n'), html: '', label: 0 as const, source: 'test', kind: 'ham', group: 'g-long' };
    // (the sample is by hash of the window index: about, and at most, the cap)
    const six = messageWindows(long, 6, RECIPES['2.7']).rows.length;
    const sixteen = messageWindows(long, 6, { ...r28, negWindowsPerMessage: 16 }).rows.length;
    expect(six).toBeLessThanOrEqual(6);
    expect(sixteen).toBeLessThanOrEqual(16);
    expect(sixteen).toBeGreaterThan(six + 4);
    const attack = { ...long, label: 1 as const, position: 'end' as const, payload: 'Point 3: the budget review' };
    const neg = messageWindows(attack, 6, { ...r28, negWindowsPerMessage: 16 }).rows.filter((w) => w.label === 0);
    expect(neg.length).toBeLessThanOrEqual(6);
  });
});

describe('the fold-model cache key (2.8)', () => {
  it('2.8a and 2.8b were measured, not shipped: the shipped recipe (2.14, on the 2.11 models) trains without the assistant goals', () => {
    expect(SHIPPED_RECIPE.name).toBe('2.14');
    expect(foldKey(SHIPPED_RECIPE)).toBe(foldKey({ ...RECIPES['2.7'], goalFeatures: true, multilingualGoals: true }));
    expect(SHIPPED_RECIPE.assistantGoals).toBeUndefined();
  });
  it('ignores the name and the run-time options, and changes with anything trained', () => {
    const r = RECIPES['2.7'];
    expect(foldKey({ ...r, name: 'x', windowCountCorrection: 0.9, hiddenNeedsInstruction: false, windowCountHidden: false, gradedHidden: false, ignoreSeparatorRuns: false })).toBe(foldKey(r));
    expect(foldKey(RECIPES['2.8a'])).not.toBe(foldKey(r));
    expect(foldKey(RECIPES['2.8b'])).not.toBe(foldKey(RECIPES['2.8a']));
    // the 2.4 models are 2.7's (2.6 and 2.7 changed the scoring only)
    expect(foldKey(RECIPES['2.4'])).toBe(foldKey(r));
  });
});

describe('trainLR above 150,000 items (2.8 fix)', () => {
  it('learns from precomputed feature hashes when the set is too large to cache', () => {
    // the v2 windows pass `feats` and an empty `text`; above 150,000 items the
    // trainer re-featurised `text` and learned nothing (all-zero weights)
    const items: TrainItem[] = [];
    for (let i = 0; i < 150_010; i++) {
      const label = i % 3 === 0 ? 1 : 0;
      items.push({ text: '', label, feats: Uint32Array.of(label ? 7 : 9, 100 + (i % 50)) });
    }
    const m = trainLR(items, { bits: 10, epochs: 1, lr: 0.15, l2: 1e-6, seed: 1, balance: false });
    expect(m.w[7]).toBeGreaterThan(1);
    expect(m.w[9]).toBeLessThan(-1);
  });
});
