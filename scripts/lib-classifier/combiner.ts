// The learned combination of classifier 2.9 (docs/classifier.md "Classifier
// 2.9"): a logistic model over the parts of the injection score
// (src/classifier/injection.ts COMBINER_FEATURES), trained on scores that the
// window model did not train on, cross-fitted in two halves by message group
// so that no message is scored by a combination that saw it.
import { injectionInputOf, scanInjection, COMBINER_FEATURES, type CombinerProbe } from '../../src/classifier/injection.js';
import type { Combiner, InjectionBundle } from '../../src/classifier/model.js';
import { bounded } from '../../src/classifier/text.js';
import { fnv1a } from './data.js';
import { ATTACK_SOURCES, type AttackSource, type Msg } from './loso.js';
import { evalSets, type EvalSets } from './recipe-v2.js';

export interface Scored {
  /** COMBINER_FEATURES of the message under the bundle */
  f: Float64Array;
  /** the no-cue cap (0.49) applies */
  capped: boolean;
  /** the bundle's own score (classifyInbound's injection_score, rounded like it) */
  base: number;
  /** cross-fitting half (0/1) by message group */
  half: 0 | 1;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** A message's combination inputs under `bundle`, through the path classifyInbound takes (unknown sender). */
export function scoredOf(bundle: InjectionBundle, m: Msg): Scored {
  const { input } = injectionInputOf(bounded(m.subject, 2000), bounded(m.text), bounded(m.html, 128 * 1024));
  const probe: CombinerProbe = {};
  const r = scanInjection(input, { ...bundle, combiner: undefined }, probe);
  return { f: probe.features!, capped: probe.capped!, base: r3(r.score), half: halfOf(m) };
}

export function halfOf(m: Msg): 0 | 1 {
  return (fnv1a(m.group, 29) & 1) as 0 | 1;
}

/** The score classifyInbound gives with `c` in the bundle (no calibration: quarantineAt 0.95), from the inputs. */
export function combinedScore(c: Combiner, s: Scored): number {
  let z = c.bias;
  for (let k = 0; k < c.w.length; k++) z += c.w[k] * s.f[k];
  let p = 1 / (1 + Math.exp(-z));
  if (s.capped && p >= 0.49) p = 0.49;
  return r3(p);
}

/**
 * Evidence of an attack (the score, the window maximum, hidden text, rules,
 * the action request) may only raise the combination: a negative weight on
 * one of them is the training sources' quirk (their attacks rarely ask for a
 * privileged action while the benign requests do), not a property of attacks.
 */
export const EVIDENCE_FEATURES: readonly string[] = ['score', 'vis_max', 'hidden', 'rule_max', 'rule_count', 'hidden_strength', 'action'];

/**
 * L2-regularised logistic regression by Newton's method on standardised
 * features (`use`: the feature names to learn from; the others get weight 0),
 * each class weighing half; returned in raw feature units. An evidence
 * feature (EVIDENCE_FEATURES) whose weight comes out negative is dropped and
 * the model refitted without it (weights ≥ 0 by an active set).
 */
export function trainCombiner(pos: Scored[], neg: Scored[], use: readonly string[], l2 = 1): Combiner {
  let active = [...use];
  for (;;) {
    const c = fitCombiner(pos, neg, active, l2);
    const bad = active.filter((n) => EVIDENCE_FEATURES.includes(n) && c.w[COMBINER_FEATURES.indexOf(n as (typeof COMBINER_FEATURES)[number])] < 0);
    if (!bad.length) return c;
    active = active.filter((n) => !bad.includes(n));
  }
}

function fitCombiner(pos: Scored[], neg: Scored[], use: readonly string[], l2: number): Combiner {
  const idx = use.map((n) => COMBINER_FEATURES.indexOf(n as (typeof COMBINER_FEATURES)[number]));
  if (idx.some((i) => i < 0)) throw new Error(`unknown combiner feature in ${use.join(',')}`);
  const rows = [...pos, ...neg];
  const y = rows.map((_, i) => (i < pos.length ? 1 : 0));
  const wt = rows.map((_, i) => (i < pos.length ? 0.5 / pos.length : 0.5 / neg.length) * rows.length);
  const d = idx.length + 1;
  const mu = idx.map((k) => rows.reduce((a, r) => a + r.f[k], 0) / rows.length);
  const sd = idx.map((k, j) => Math.sqrt(rows.reduce((a, r) => a + (r.f[k] - mu[j]) ** 2, 0) / rows.length) || 1);
  const X = rows.map((r) => [...idx.map((k, j) => (r.f[k] - mu[j]) / sd[j]), 1]);
  const beta = new Array(d).fill(0);
  for (let it = 0; it < 30; it++) {
    const g = new Array(d).fill(0);
    const H = Array.from({ length: d }, () => new Array(d).fill(0));
    for (let i = 0; i < X.length; i++) {
      let z = 0;
      for (let a = 0; a < d; a++) z += beta[a] * X[i][a];
      const p = 1 / (1 + Math.exp(-z));
      const r = wt[i] * (p - y[i]);
      const s = wt[i] * p * (1 - p);
      for (let a = 0; a < d; a++) {
        g[a] += r * X[i][a];
        for (let b = 0; b <= a; b++) H[a][b] += s * X[i][a] * X[i][b];
      }
    }
    for (let a = 0; a < d - 1; a++) {
      g[a] += l2 * beta[a];
      H[a][a] += l2;
    }
    for (let a = 0; a < d; a++) for (let b = a + 1; b < d; b++) H[a][b] = H[b][a];
    const step = solve(H, g);
    let mx = 0;
    for (let a = 0; a < d; a++) {
      beta[a] -= step[a];
      mx = Math.max(mx, Math.abs(step[a]));
    }
    if (mx < 1e-8) break;
  }
  const w = new Array(COMBINER_FEATURES.length).fill(0);
  let bias = beta[d - 1];
  idx.forEach((k, j) => {
    w[k] = beta[j] / sd[j];
    bias -= (beta[j] * mu[j]) / sd[j];
  });
  return { w, bias };
}

/** Gaussian elimination with partial pivoting (small systems). */
function solve(A0: number[][], b0: number[]): number[] {
  const n = b0.length;
  const A = A0.map((r, i) => [...r, b0[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(A[r][c]) > Math.abs(A[p][c])) p = r;
    [A[c], A[p]] = [A[p], A[c]];
    const v = A[c][c] || 1e-12;
    for (let r = c + 1; r < n; r++) {
      const f = A[r][c] / v;
      for (let k = c; k <= n; k++) A[r][k] -= f * A[c][k];
    }
  }
  const x = new Array(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = A[r][n];
    for (let k = r + 1; k < n; k++) s -= A[r][k] * x[k];
    x[r] = s / (A[r][r] || 1e-12);
  }
  return x;
}

/** The two half-combinations of a fold: half k is trained on the other half's messages. */
export function crossFit(pos: Scored[], neg: Scored[], use: readonly string[], l2 = 1): [Combiner, Combiner] {
  const part = (h: 0 | 1) => trainCombiner(pos.filter((s) => s.half !== h), neg.filter((s) => s.half !== h), use, l2);
  return [part(0), part(1)];
}

let designSets: EvalSets | null = null;
/** The attacks a combination may learn from: the evaluation side of every source but `exclude` (written and embedded). */
export function designAttacks(exclude: AttackSource | null): Msg[] {
  designSets ??= evalSets(250, true);
  const out: Msg[] = [];
  for (const t of ATTACK_SOURCES) {
    if (t === exclude) continue;
    const q = designSets.positives.get(t)!;
    out.push(...q.written, ...q.embedded);
  }
  return out;
}

/**
 * The combination of one leave-one-source-out fold (held out: `s`): learned
 * on the fold model's scores of its training sources' evaluation side and of
 * the shared negatives, cross-fitted. Returns the scorer's bundle per message.
 */
export function foldCombination(base: InjectionBundle, s: AttackSource, negatives: Msg[], spec: { use: readonly string[]; l2: number }): (m: Msg) => InjectionBundle {
  const b = { ...base, combiner: undefined };
  const cs = crossFit(designAttacks(s).map((m) => scoredOf(b, m)), negatives.map((m) => scoredOf(b, m)), spec.use, spec.l2);
  const bundles = [{ ...b, combiner: cs[0] }, { ...b, combiner: cs[1] }];
  return (m) => bundles[halfOf(m)];
}

/** A message's cross-fitted score: the half-combination that did not see its group. */
export function crossScore(cs: [Combiner, Combiner], s: Scored): number {
  return combinedScore(cs[s.half], s);
}
