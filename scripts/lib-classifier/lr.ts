// Binary logistic regression over hashed features, Adagrad + L2, pure TS.
// Features come from src/classifier/features.ts so training and run time agree.
import { featurize, MAX_FEATURES, sigmoid } from '../../src/classifier/features.js';
import { xorshift } from './xorshift.js';

export interface TrainItem {
  /** lower-cased text span(s) fed to featurize */
  text: string;
  label: number;
  weight?: number;
  /** featurised separately and concatenated (the v2 sentence-pair windows); `text` is then ignored */
  parts?: string[];
  /** precomputed feature hashes (reused across several trainings on the same items) */
  feats?: Uint32Array;
}

export interface TrainOptions {
  bits: number;
  epochs: number;
  lr: number;
  l2: number;
  seed: number;
  /** reweight so both classes carry equal total weight */
  balance: boolean;
}

export interface FloatModel {
  bits: number;
  w: Float32Array;
  bias: number;
}

const rng = (seed: number): (() => number) => xorshift(seed).rnd;

const buf = new Uint32Array(MAX_FEATURES);

export function featuresOf(text: string, parts?: string[]): { feats: Uint32Array; n: number } {
  if (parts) {
    let n = 0;
    for (const p of parts) n = featurize(p, 0, p.length, buf, n);
    return { feats: buf, n };
  }
  const n = featurize(text, 0, text.length, buf, 0);
  return { feats: buf, n };
}

export function trainLR(items: TrainItem[], opt: TrainOptions): FloatModel {
  const size = 1 << opt.bits;
  const mask = size - 1;
  const w = new Float32Array(size);
  const g2 = new Float32Array(size).fill(1e-6);
  let bias = 0;
  let bg2 = 1e-6;
  const pos = items.filter((x) => x.label === 1).length;
  const neg = items.length - pos;
  const wp = opt.balance && pos > 0 ? items.length / (2 * pos) : 1;
  const wn = opt.balance && neg > 0 ? items.length / (2 * neg) : 1;
  const order = items.map((_, i) => i);
  const r = rng(opt.seed);
  // cache masked features when the set is small; recompute per epoch otherwise
  const useCache = items.length <= 150000;
  const cache: Uint32Array[] = useCache
    ? items.map((it) => {
        const { feats, n } = it.feats ? { feats: it.feats, n: it.feats.length } : featuresOf(it.text, it.parts);
        const a = new Uint32Array(n);
        for (let i = 0; i < n; i++) a[i] = feats[i] & mask;
        return a;
      })
    : [];
  const tmp = new Uint32Array(MAX_FEATURES);
  const get = (idx: number): Uint32Array => {
    if (useCache) return cache[idx];
    // precomputed hashes count here too: until 2.8 this path re-featurised
    // `text`, which is '' for the v2 windows, so a window set above 150,000
    // items trained an n-gram model of all-zero weights (2.7's 148,946 windows
    // were just under; 2.8's extra data crossed it)
    const it = items[idx];
    const { feats, n } = it.feats ? { feats: it.feats, n: it.feats.length } : featuresOf(it.text, it.parts);
    for (let i = 0; i < n; i++) tmp[i] = feats[i] & mask;
    return tmp.subarray(0, n);
  };
  for (let ep = 0; ep < opt.epochs; ep++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      const t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (const idx of order) {
      const it = items[idx];
      const f = get(idx);
      const n = f.length;
      const v = n > 0 ? 1 / Math.sqrt(n) : 0;
      let z = bias;
      for (let i = 0; i < n; i++) z += w[f[i]] * v;
      const p = sigmoid(z);
      const sw = (it.weight ?? 1) * (it.label === 1 ? wp : wn);
      const g = (p - it.label) * sw;
      for (let i = 0; i < n; i++) {
        const k = f[i];
        const gk = g * v + opt.l2 * w[k];
        g2[k] += gk * gk;
        w[k] -= (opt.lr * gk) / Math.sqrt(g2[k]);
      }
      bg2 += g * g;
      bias -= (opt.lr * g) / Math.sqrt(bg2);
    }
  }
  return { bits: opt.bits, w, bias };
}

export function scoreFloat(m: FloatModel, text: string, parts?: string[]): number {
  return sigmoid(marginFloat(m, text, parts));
}

export function marginFloat(m: FloatModel, text: string, parts?: string[]): number {
  const { feats, n } = featuresOf(text, parts);
  if (n === 0) return m.bias;
  const mask = (1 << m.bits) - 1;
  let s = 0;
  for (let i = 0; i < n; i++) s += m.w[feats[i] & mask];
  return m.bias + s / Math.sqrt(n);
}

/** The int8 run-time form of a float model (what the shipped classifier reads). */
export function toLinear(m: FloatModel): { mask: number; bias: number; scale: number; w: Int8Array } {
  const q = quantizeArray(m);
  return { mask: (1 << m.bits) - 1, bias: m.bias, scale: q.scale, w: q.q };
}

function quantizeArray(m: FloatModel): { q: Int8Array; scale: number } {
  let max = 0;
  for (let i = 0; i < m.w.length; i++) max = Math.max(max, Math.abs(m.w[i]));
  const scale = max > 0 ? max / 127 : 1;
  const q = new Int8Array(m.w.length);
  for (let i = 0; i < m.w.length; i++) q[i] = Math.max(-127, Math.min(127, Math.round(m.w[i] / scale)));
  return { q, scale: Number(scale.toPrecision(9)) };
}

/** int8 quantisation with one scale per model; returns base64 and scale. */
export function quantize(m: FloatModel): { data: string; scale: number; bias: number; bits: number; nonzero: number } {
  const { q, scale } = quantizeArray(m);
  let nonzero = 0;
  for (let i = 0; i < q.length; i++) if (q[i] !== 0) nonzero++;
  return { data: Buffer.from(q.buffer).toString('base64'), scale, bias: Number(m.bias.toPrecision(9)), bits: m.bits, nonzero };
}
