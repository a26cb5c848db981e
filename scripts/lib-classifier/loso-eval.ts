// Leave-one-source-out for the injection model: for each attack source,
// retrain without it, score its attacks (as written and embedded in held-out
// mail at six positions) and the shared held-out negatives through the real
// classifyInbound path (rules + model + action_request, unknown sender), and
// report ROC-AUC and recall at 1% FPR (threshold on all negatives).
// Used by eval-classifier.ts (the table) and train-classifier.ts (the
// quarantine calibration is chosen on these negatives).
import { classifyInbound, type SenderHistory } from '../../src/classifier/index.js';
import { setInjectionOverride, type InjectionBundle } from '../../src/classifier/model.js';
import { auc, recallAtFpr } from './metrics.js';
import { ATTACK_SOURCES, POSITIONS, type AttackSource, type Msg, type Position } from './loso.js';
import { bundleOf, evalSets, trainingMessages, trainV2, SHIPPED_RECIPE, type EvalSets, type Recipe } from './recipe-v2.js';
import { trainLR, toLinear } from './lr.js';
import { dedupAndSplit } from './data.js';
import { injectionTask } from './corpora.js';
import { injectionItemsV1, scoreV1 } from './baseline-v1.js';
import { foldModel } from './fold-cache.js';
import { foldCombination } from './combiner.js';

export const UNKNOWN: SenderHistory = { messagesFromSender: 0, messagesFromDomain: 0, repliesFromSender: 0, sendsToSender: 0, spfPass: null, dkimPass: null, suppressed: false, complaints: 0 };
const NOW = new Date('2025-03-10T12:00:00Z');

/** A message's injection score from the real classifier with `bundle` in place of the committed weights. */
export function scoreWith(bundle: InjectionBundle | null, m: Msg): number {
  setInjectionOverride(bundle);
  try {
    return classifyInbound({ from: 'sender@example.com', subject: m.subject, text: m.text, html: m.html || null, classifyIntent: false, history: UNKNOWN }, NOW).injection_score;
  } finally {
    setInjectionOverride(null);
  }
}

export interface SourceFigures {
  source: AttackSource;
  n: number;
  writtenAuc: number;
  embeddedAuc: number;
  writtenRecall: number;
  embeddedRecall: number;
  /** embedded recall at 1% FPR per position */
  byPosition: Record<Position, number>;
  /** benign hidden text (2.4 test set): how many, at or above 0.5, above the fold's 1%-FPR threshold, highest score */
  hidden?: { n: number; atHalf: number; overFpr: number; max: number };
}

export interface LosoRun {
  figures: SourceFigures[];
  /** every fold's scores of the shared negatives (for calibration) */
  negScores: number[];
  negSources: string[];
  /** the same fold models scored with run-time options changed (`variants` of losoV2), in that order */
  variants?: LosoRun[];
}

export function figuresFor(source: AttackSource, neg: number[], written: number[], embedded: { s: number; pos?: Position }[]): SourceFigures {
  const lab = (pos: number[]) => [...pos.map(() => 1), ...neg.map(() => 0)];
  const emb = embedded.map((e) => e.s);
  const byPosition = {} as Record<Position, number>;
  for (const p of POSITIONS) byPosition[p] = recallAtFpr(embedded.filter((e) => e.pos === p).map((e) => e.s), neg, 0.01).recall;
  return {
    source,
    n: written.length,
    writtenAuc: auc([...written, ...neg], lab(written)),
    embeddedAuc: auc([...emb, ...neg], lab(emb)),
    writtenRecall: recallAtFpr(written, neg, 0.01).recall,
    embeddedRecall: recallAtFpr(emb, neg, 0.01).recall,
    byPosition,
  };
}

type Scorer = (m: Msg) => number;

function evaluateFold(source: AttackSource, sets: EvalSets, score: Scorer): { fig: SourceFigures; neg: number[] } {
  const neg = sets.negatives.map(score);
  const p = sets.positives.get(source)!;
  const written = p.written.map(score);
  const embedded = p.embedded.map((m) => ({ s: score(m), pos: m.position }));
  const fig = figuresFor(source, neg, written, embedded);
  if (sets.hiddenBenign.length) {
    const hs = sets.hiddenBenign.map(score);
    const thr = recallAtFpr([], neg, 0.01).threshold;
    fig.hidden = { n: hs.length, atHalf: hs.filter((x) => x >= 0.5).length, overFpr: hs.filter((x) => x > thr).length, max: Math.max(...hs) };
  }
  return { fig, neg };
}

/**
 * A v2 recipe, one model per held-out source. `variants`: run-time options
 * of the bundle (e.g. `{ ignoreSeparatorRuns: false }`) to score the same
 * fold models with as well — an ablation that needs no retraining.
 */
export function losoV2(log: (s: string) => void, sets: EvalSets = evalSets(), recipe: Recipe = SHIPPED_RECIPE, variants: Partial<InjectionBundle>[] = [], sources: readonly AttackSource[] = ATTACK_SOURCES, cacheDir?: string): LosoRun {
  const runs: LosoRun[] = [{ figures: [], negScores: [], negSources: [] }, ...variants.map(() => ({ figures: [], negScores: [], negSources: [] }))];
  for (const s of sources) {
    log(`${recipe.name} fold: holding out ${s}`);
    // (cacheDir: fold-cache.ts — the fold models an analysis run trained, read instead of retrained)
    const model = cacheDir ? foldModel(s, recipe, cacheDir, log) : trainV2(trainingMessages(s, recipe), log, recipe);
    const base = bundleOf(model);
    [{}, ...variants].forEach((v, k) => {
      const bundle = { ...base, ...v };
      // 2.9: the learned combination of the fold (its training sources only, cross-fitted by message group)
      const per = recipe.combiner ? foldCombination(bundle, s, sets.negatives, recipe.combiner) : () => bundle;
      const { fig, neg } = evaluateFold(s, sets, (m) => scoreWith(per(m), m));
      runs[k].figures.push(fig);
      runs[k].negScores.push(...neg);
      runs[k].negSources.push(...sets.negatives.map((m) => m.source));
    });
  }
  return { ...runs[0], ...(variants.length ? { variants: runs.slice(1) } : {}) };
}

/** Map our attack sources onto the v1 task's example sources. */
function v1SourceOf(src: string, label: number): AttackSource | null {
  if (label !== 1) return null;
  if (src === 'deepset') return 'deepset';
  if (src === 'tensor-trust') return 'tensor-trust';
  if (src === 'jailbreak-llms') return 'jailbreak-llms';
  if (src.startsWith('bipia')) return 'bipia';
  if (src.startsWith('own')) return 'own';
  return null;
}

/** v1 (the recipe before issue #12), retrained per held-out source the same way. */
export function losoV1(log: (s: string) => void, sets: EvalSets = evalSets()): LosoRun {
  const { train } = dedupAndSplit(injectionTask());
  const figures: SourceFigures[] = [];
  const negScores: number[] = [];
  const negSources: string[] = [];
  for (const s of ATTACK_SOURCES) {
    log(`v1 fold: holding out ${s}`);
    const items = train.filter((ex) => v1SourceOf(ex.source, ex.label) !== s).flatMap(injectionItemsV1);
    const m = toLinear(trainLR(items, { bits: 17, epochs: 6, lr: 0.15, l2: 1e-6, seed: 1, balance: true }));
    const { fig, neg } = evaluateFold(s, sets, (x) => scoreV1(m, x.subject, x.text, x.html));
    figures.push(fig);
    negScores.push(...neg);
    negSources.push(...sets.negatives.map((x) => x.source));
  }
  return { figures, negScores, negSources };
}

/** Raw score threshold keeping at most `rate` of the negatives at or above it. */
export function thresholdFor(negScores: number[], rate: number): number {
  const s = [...negScores].sort((a, b) => b - a);
  const k = Math.floor(s.length * rate);
  // the smallest score strictly above the (k+1)-th highest negative
  const v = s[Math.min(k, s.length - 1)];
  return Math.min(0.999999, v + 1e-6);
}
