// What makes up one message's injection score (analysis only): the rule
// strengths per category, the visible and hidden model windows, the action
// request, and the highest-scoring window with its features. The combination
// is scanInjection's (src/classifier/injection.ts), recomputed part by part.
import { injectionInputOf, ruleEvidence, windowScores, actionStrength, hiddenStrengthOf } from '../../src/classifier/injection.js';
import { MODEL_HIDDEN_CHARS, MODEL_SCAN_CHARS } from '../../src/classifier/injection.js';
import { buildScanDoc, pairWindows, segmentFeatures, windowVector, FEATURES, N_FEATURES, F_HIDDEN } from '../../src/classifier/signals.js';
import { featurize, MAX_FEATURES, sigmoid } from '../../src/classifier/features.js';
import { treeMargin } from '../../src/classifier/trees.js';
import { bounded } from '../../src/classifier/text.js';
import type { InjectionBundle } from '../../src/classifier/model.js';
import type { Msg } from './loso.js';

export interface Explanation {
  rules: Record<string, number>;
  visible: number;
  hidden: number;
  act: number;
  /** components without which the score would be at or below `thr` ("combined": no single one) */
  drivers: string[];
  topWindow: string;
  /** the top window's non-zero features */
  topFeatures: string;
}

const fb = new Uint32Array(MAX_FEATURES);

export function explainMessage(bundle: InjectionBundle, m: Msg, thr: number): Explanation {
  const { input } = injectionInputOf(bounded(m.subject, 2000), bounded(m.text), bounded(m.html, 128 * 1024));
  const ev = ruleEvidence(input, bundle.ignoreSeparatorRuns, bundle.goalRules === true, bundle.foldObfuscation === true, bundle.answerRule === true);
  const hidLower = input.hidden.toLowerCase();
  const ws = windowScores(input.subject.toLowerCase(), input.visible.toLowerCase(), hidLower, bundle, ev.ruleCue);
  const hs = hiddenStrengthOf(input, ev.hiddenRule, bundle.hiddenNeedsInstruction ? ws.hiddenInstr : ws.hidden, bundle.gradedHidden);
  const comps = new Map<string, number>();
  for (const [k, v] of ev.strengths) comps.set(k, Math.min(0.99, v));
  if (hs > 0) comps.set('hidden_content', hs);
  comps.set('model', 0.985 * ws.visible);
  const act = actionStrength(ws.actions, undefined);
  comps.set('action_request', act);
  const total = (skip: string | null) => {
    let keep = 1;
    for (const [k, v] of comps) if (k !== skip) keep *= 1 - v;
    return 1 - keep;
  };
  const drivers = [...comps.keys()].filter((k) => (comps.get(k) ?? 0) > 0 && total(k) <= thr);
  // the top window (replicates windowScores' loop for the one window)
  const { doc, segs } = buildScanDoc(input.subject.toLowerCase(), input.visible.toLowerCase(), hidLower, MODEL_SCAN_CHARS, MODEL_HIDDEN_CHARS);
  const sf = segmentFeatures(doc, segs);
  const sums: number[] = [];
  const ns: number[] = [];
  let d0 = 0, n0 = 0, d1 = 0, n1 = 0;
  for (const sg of segs) {
    const n = featurize(doc, sg.a, sg.b, fb, 0);
    let s = 0, d = 0;
    for (let k = 0; k < n; k++) {
      if (bundle.ngram) s += bundle.ngram.w[fb[k] & bundle.ngram.mask];
      if (bundle.doc) d += bundle.doc.w[fb[k] & bundle.doc.mask];
    }
    sums.push(s);
    ns.push(n);
    if (sg.flags & F_HIDDEN) (d1 += d), (n1 += n);
    else (d0 += d), (n0 += n);
  }
  const dm = bundle.doc;
  const doc0 = dm ? (n0 ? dm.bias + (d0 * dm.scale) / Math.sqrt(n0) : dm.bias) : 0;
  const doc1 = dm ? (n1 ? dm.bias + (d1 * dm.scale) / Math.sqrt(n1) : dm.bias) : 0;
  const wins = pairWindows(segs);
  let best = -1, bestText = '', bestVec = '';
  const v = new Float32Array(N_FEATURES);
  for (const w of wins) {
    const [i, j] = w;
    const n = ns[i] + (i === j ? 0 : ns[j]);
    const z = bundle.ngram ? (n ? bundle.ngram.bias + ((sums[i] + (i === j ? 0 : sums[j])) * bundle.ngram.scale) / Math.sqrt(n) : bundle.ngram.bias) : 0;
    windowVector(segs, sf, w, z, wins.length, v, segs[i].flags & F_HIDDEN ? doc1 : doc0);
    let t = bundle.trees ? treeMargin(bundle.trees, v) : z;
    if (!ev.ruleCue && n < 60) t = -2.944 + ((t + 2.944) * n) / 60;
    const p = sigmoid(t);
    if (p > best) {
      best = p;
      bestText = (segs[i].flags & F_HIDDEN ? '[hidden] ' : '') + doc.slice(segs[i].a, segs[i].b) + (i === j ? '' : ' | ' + doc.slice(segs[j].a, segs[j].b));
      bestVec = FEATURES.map((f, k) => (v[k] ? `${f}:${Number(v[k].toFixed(2))}` : '')).filter(Boolean).join(' ');
    }
  }
  const rules: Record<string, number> = {};
  for (const [k, x] of ev.strengths) rules[k] = Number(x.toFixed(2));
  if (hs > 0) rules.hidden_content = Number(hs.toFixed(2));
  return { rules, visible: ws.visible, hidden: ws.hidden, act, drivers: drivers.length ? drivers : ['combined'], topWindow: bestText, topFeatures: bestVec };
}
