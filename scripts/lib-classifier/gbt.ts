// A small gradient-boosted tree trainer (binary log-loss, histogram splits on
// at most 32 quantile cut points per feature, depth-limited, row subsampling),
// pure TS and seeded, so training is reproducible. Produces the TreeSpec that
// src/classifier/trees.ts evaluates. Thresholds are feature values seen in
// the data (float32), and a row goes left when x <= threshold — the same test
// as run time.
import type { TreeSpec } from '../../src/classifier/trees.js';
import { xorshift } from './xorshift.js';

export interface GbtOptions {
  trees: number;
  depth: number;
  lr: number;
  lambda: number;
  minHess: number;
  subsample: number;
  seed: number;
  bins: number;
}

export const GBT_DEFAULTS: GbtOptions = { trees: 120, depth: 4, lr: 0.15, lambda: 2, minHess: 4, subsample: 0.8, seed: 7, bins: 32 };

const rng = (seed: number): (() => number) => xorshift(seed).rnd;

/** X: n rows × d features (row-major float32); y: 0/1; w: sample weights. */
export function trainGbt(X: Float32Array, d: number, y: Uint8Array, w: Float32Array, opt: GbtOptions = GBT_DEFAULTS): TreeSpec {
  const n = y.length;
  // cut points per feature: quantiles of the observed values
  const cuts: Float32Array[] = [];
  const bin = new Uint8Array(n * d);
  const col = new Float32Array(n);
  for (let f = 0; f < d; f++) {
    for (let i = 0; i < n; i++) col[i] = X[i * d + f];
    const sorted = Float32Array.from(col).sort();
    const c: number[] = [];
    for (let q = 1; q < opt.bins; q++) {
      const v = sorted[Math.min(n - 1, Math.floor((q * n) / opt.bins))];
      if (c.length === 0 || v > c[c.length - 1]) c.push(v);
    }
    // the largest value never needs a cut (everything is <= it)
    while (c.length && c[c.length - 1] >= sorted[n - 1]) c.pop();
    const cf = Float32Array.from(c);
    cuts.push(cf);
    for (let i = 0; i < n; i++) {
      const v = col[i];
      let lo = 0;
      let hi = cf.length; // bin = first cut with v <= cut, or cf.length
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (v <= cf[mid]) hi = mid;
        else lo = mid + 1;
      }
      bin[i * d + f] = lo;
    }
  }
  let pos = 0;
  let tot = 0;
  for (let i = 0; i < n; i++) {
    tot += w[i];
    if (y[i]) pos += w[i];
  }
  const base = Math.log(Math.max(1e-6, pos) / Math.max(1e-6, tot - pos));
  const F = new Float64Array(n).fill(base);
  const g = new Float64Array(n);
  const h = new Float64Array(n);
  const spec: TreeSpec = { base, feat: [], thr: [], left: [], right: [], val: [], roots: [] };
  const r = rng(opt.seed);
  const B = opt.bins + 1;
  const hg = new Float64Array(d * B);
  const hh = new Float64Array(d * B);
  const nodeBin: number[] = []; // per node: the bin index of its cut (training only)

  for (let t = 0; t < opt.trees; t++) {
    for (let i = 0; i < n; i++) {
      const p = 1 / (1 + Math.exp(-F[i]));
      g[i] = (p - y[i]) * w[i];
      h[i] = Math.max(1e-12, p * (1 - p)) * w[i];
    }
    const rows: number[] = [];
    for (let i = 0; i < n; i++) if (r() < opt.subsample) rows.push(i);
    // grow depth-first; returns node index
    const grow = (idx: Int32Array, depth: number): number => {
      let G = 0;
      let H = 0;
      for (let k = 0; k < idx.length; k++) {
        G += g[idx[k]];
        H += h[idx[k]];
      }
      const node = spec.feat.length;
      spec.feat.push(-1);
      spec.thr.push(0);
      spec.left.push(-1);
      spec.right.push(-1);
      spec.val.push(Number(((-G / (H + opt.lambda)) * opt.lr).toPrecision(7)));
      nodeBin.push(-1);
      if (depth >= opt.depth || H < 2 * opt.minHess) return node;
      hg.fill(0);
      hh.fill(0);
      for (let k = 0; k < idx.length; k++) {
        const i = idx[k];
        const gi = g[i];
        const hi = h[i];
        const o = i * d;
        for (let f = 0; f < d; f++) {
          const b = f * B + bin[o + f];
          hg[b] += gi;
          hh[b] += hi;
        }
      }
      const parent = (G * G) / (H + opt.lambda);
      let best = 1e-6;
      let bf = -1;
      let bb = -1;
      for (let f = 0; f < d; f++) {
        let gl = 0;
        let hl = 0;
        const nc = cuts[f].length;
        for (let b = 0; b < nc; b++) {
          gl += hg[f * B + b];
          hl += hh[f * B + b];
          const gr = G - gl;
          const hr = H - hl;
          if (hl < opt.minHess || hr < opt.minHess) continue;
          const gain = (gl * gl) / (hl + opt.lambda) + (gr * gr) / (hr + opt.lambda) - parent;
          if (gain > best) {
            best = gain;
            bf = f;
            bb = b;
          }
        }
      }
      if (bf < 0) return node;
      const L: number[] = [];
      const R: number[] = [];
      for (let k = 0; k < idx.length; k++) (bin[idx[k] * d + bf] <= bb ? L : R).push(idx[k]);
      spec.feat[node] = bf;
      spec.thr[node] = cuts[bf][bb];
      nodeBin[node] = bb;
      spec.val[node] = 0;
      spec.left[node] = grow(Int32Array.from(L), depth + 1);
      spec.right[node] = grow(Int32Array.from(R), depth + 1);
      return node;
    };
    const root = grow(Int32Array.from(rows), 0);
    spec.roots.push(root);
    // update all rows (not only the subsample)
    for (let i = 0; i < n; i++) {
      let nd = root;
      while (spec.feat[nd] >= 0) nd = bin[i * d + spec.feat[nd]] <= nodeBin[nd] ? spec.left[nd] : spec.right[nd];
      F[i] += spec.val[nd];
    }
  }
  return spec;
}
