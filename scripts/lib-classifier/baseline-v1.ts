// The v1 injection recipe (classifier 1.0, before issue #12), kept ONLY so
// that `npm run eval:classifier` can retrain and score it per held-out
// source for the "before" column: an n-gram logistic model over
// 1,000-character windows of each example (attacks as written, not embedded
// in mail), max over windows, the same rules by noisy-OR. Run time no longer
// uses any of this.
import { featurize, margin, MAX_FEATURES, sigmoid, type LinearModel } from '../../src/classifier/features.js';
import { hasCue, hiddenStrengthOf, injectionInputOf, ruleEvidence } from '../../src/classifier/injection.js';
import { htmlToText, scanInvisible } from '../../src/classifier/text.js';
import type { Example } from './data.js';
import type { TrainItem } from './lr.js';

const WINDOW_CHARS = 1000;
const SCAN_CHARS = 16 * 1024;
const PRIOR_LOGIT = -2.944;
const EVIDENCE_FEATURES = 60;
const NO_CUE_FACTOR = 0.5;

/** Windows of at most WINDOW_CHARS, cut at whitespace. */
export function windowsV1(text: string, maxChars = SCAN_CHARS): Array<[number, number]> {
  const end = Math.min(text.length, maxChars);
  const out: Array<[number, number]> = [];
  let start = 0;
  while (start < end) {
    let stop = Math.min(end, start + WINDOW_CHARS);
    if (stop < end) {
      const cut = Math.max(text.lastIndexOf(' ', stop), text.lastIndexOf('\n', stop));
      if (cut > start + WINDOW_CHARS / 2) stop = cut;
    }
    out.push([start, stop]);
    start = stop;
  }
  return out;
}

const buf = new Uint32Array(MAX_FEATURES);
function modelScoreV1(m: LinearModel, lower: string, maxChars: number, ruleCue: boolean): number {
  let best = 0;
  for (const [a, b] of windowsV1(lower, maxChars)) {
    const n = featurize(lower, a, b, buf, 0);
    if (n < 3) continue;
    const z = margin(m, buf, n);
    let p = n >= EVIDENCE_FEATURES ? sigmoid(z) : sigmoid(PRIOR_LOGIT + ((z - PRIOR_LOGIT) * n) / EVIDENCE_FEATURES);
    if (p > best && !ruleCue && !hasCue(lower, a, b)) p *= NO_CUE_FACTOR;
    if (p > best) best = p;
  }
  return best;
}

/** v1 injection score of a message (subject, plain, HTML) with model `m`. */
export function scoreV1(m: LinearModel, subject: string, text: string, html: string): number {
  const { input } = injectionInputOf(subject, text, html);
  const ev = ruleEvidence(input);
  const pVis = modelScoreV1(m, ev.visLower, SCAN_CHARS, ev.ruleCue);
  const pHid = ev.hidLower ? modelScoreV1(m, ev.hidLower, 8192, ev.ruleCue) : 0;
  const hs = hiddenStrengthOf(input, ev.hiddenRule, pHid);
  if (hs > 0) ev.strengths.set('hidden_content', hs);
  let keep = 1;
  for (const s of ev.strengths.values()) keep *= 1 - Math.min(0.99, s);
  keep *= 1 - 0.985 * pVis;
  let score = 1 - keep;
  if (!ev.ruleCue && input.tagChars === 0 && hs < 0.45 && score >= 0.49 && !hasCue(ev.visLower) && !(ev.hidLower && hasCue(ev.hidLower))) score = 0.49;
  return score;
}

/** v1 training items: ~1,000-char windows of each example. */
export function injectionItemsV1(ex: Example): TrainItem[] {
  const items: TrainItem[] = [];
  const meta = ex.meta ?? {};
  const doc = ((ex.subject ? ex.subject + '\n' : '') + ex.text).toLowerCase();
  const html = typeof meta.html === 'string' ? meta.html : '';
  if (html) {
    const h = htmlToText(html);
    if (h.hidden) items.push({ text: h.hidden.toLowerCase(), label: ex.label });
    for (const [a, b] of windowsV1(doc).slice(0, 4)) items.push({ text: doc.slice(a, b), label: ex.label && !h.hidden ? ex.label : 0 });
    return items;
  }
  const t = scanInvisible(doc).clean;
  const attack = typeof meta.attack === 'string' ? meta.attack.toLowerCase() : '';
  if (ex.label === 1 && attack) {
    const i = t.indexOf(attack);
    if (i >= 0) {
      const a = Math.max(0, t.lastIndexOf(' ', Math.max(0, i - 350)));
      const b = Math.min(t.length, i + attack.length + 350);
      items.push({ text: t.slice(a, b), label: 1 });
      return items;
    }
  }
  const ws = windowsV1(t);
  const keep = ex.label === 1 ? 3 : 6;
  for (const [a, b] of ws.slice(0, keep)) items.push({ text: t.slice(a, b), label: ex.label });
  return items;
}
