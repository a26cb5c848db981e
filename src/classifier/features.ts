// Hashed features shared by training (scripts/train-classifier.ts) and run
// time: lower-cased word unigrams and bigrams, ASCII punctuation tokens, and
// character 3- and 4-grams inside words (with boundary marks). Digits are
// folded to '0' so amounts, codes and dates generalise. Hashes are 32-bit
// (FNV-1a + murmur finaliser); a model with 2^bits weights uses `h & mask`.

/** Upper bound on features produced for one span of text. */
export const MAX_FEATURES = 16384;
const MAX_WORD = 24;

const SEED_WORD = 0x811c9dc5;
const SEED_BI = 0x2545f491;
const SEED_C3 = 0x9e3779b1;
const SEED_C4 = 0x7f4a7c15;

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Cheaper finaliser for the many character n-grams. */
function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  return (h ^ (h >>> 12)) >>> 0;
}

function step(h: number, c: number): number {
  return Math.imul(h ^ c, 0x01000193);
}

// 1 = word char, 2 = punctuation token, 0 = separator (ASCII only; ≥128 decided inline)
const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if ((c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90)) CLASS[c] = 1;
  else if (c > 32 && c < 127) CLASS[c] = 2;
}
CLASS[39] = 1; // apostrophe stays inside words (don't, l'équipe)

function isWordCode(c: number): boolean {
  if (c < 128) return CLASS[c] === 1;
  if (c === 0xa0 || (c >= 0x2000 && c <= 0x206f) || (c >= 0x3000 && c <= 0x303f) || (c >= 0xfe00 && c <= 0xfe0f) || c === 0xfeff)
    return false;
  if (c >= 0xff01 && c <= 0xff0f) return false;
  return true;
}

const wordBuf = new Uint16Array(MAX_WORD);

/**
 * Append the feature hashes of `text[from, to)` (already lower-cased by the
 * caller) to `out` starting at `n`; returns the new count. Never exceeds
 * `out.length`.
 */
export function featurize(text: string, from: number, to: number, out: Uint32Array, n: number): number {
  const cap = out.length;
  let prev = 0; // hash of previous token (0 = none)
  let wl = 0; // current word length (chars kept in wordBuf)
  let wh = SEED_WORD;
  let longWord = false;
  const end = Math.min(to, text.length);
  for (let i = from; i <= end && n < cap; i++) {
    const c = i < end ? text.charCodeAt(i) : 32;
    if (i < end && isWordCode(c)) {
      const f = c >= 48 && c <= 57 ? 48 : c >= 65 && c <= 90 ? c + 32 : c;
      if (wl < MAX_WORD) {
        wordBuf[wl++] = f;
        wh = step(wh, f);
      } else longWord = true;
      continue;
    }
    if (wl > 0) {
      const wHash = longWord ? fmix(0x1234567 ^ wl) : fmix(wh);
      out[n++] = wHash;
      if (prev !== 0 && n < cap) out[n++] = fmix(Math.imul(prev, 31) ^ wHash ^ SEED_BI);
      prev = wHash;
      if (!longWord && wl >= 2) {
        // char 3-grams and 4-grams of " word "; a 4-gram extends its 3-gram
        for (let k = -1; k + 2 <= wl && n < cap; k++) {
          const a = k < 0 ? 32 : wordBuf[k];
          const d = k + 2 < wl ? wordBuf[k + 2] : 32;
          const h3 = step(step(step(SEED_C3, a), wordBuf[k + 1]), d);
          out[n++] = mix(h3);
          if (k + 3 <= wl && n < cap) out[n++] = mix(step(h3, k + 3 < wl ? wordBuf[k + 3] : 32) ^ SEED_C4);
        }
      }
      wl = 0;
      wh = SEED_WORD;
      longWord = false;
    }
    if (i < end && c < 128 && CLASS[c] === 2) {
      const pHash = fmix(step(0x5bd1e995, c));
      if (n < cap) out[n++] = pHash;
      if (prev !== 0 && n < cap) out[n++] = fmix(Math.imul(prev, 31) ^ pHash ^ SEED_BI);
      prev = pHash;
    }
  }
  return n;
}

/** A binary logistic model over hashed features. */
export interface LinearModel {
  mask: number;
  bias: number;
  scale: number;
  w: Int8Array | Float32Array;
}

export function sigmoid(z: number): number {
  if (z > 30) return 1;
  if (z < -30) return 0;
  return 1 / (1 + Math.exp(-z));
}

/** Feature values are 1/sqrt(n) so long and short texts live on one scale. */
export function margin(m: LinearModel, feats: Uint32Array, n: number): number {
  if (n === 0) return m.bias;
  let s = 0;
  const w = m.w;
  const mask = m.mask;
  for (let i = 0; i < n; i++) s += w[feats[i] & mask];
  return m.bias + (s * m.scale) / Math.sqrt(n);
}

export function predict(m: LinearModel, feats: Uint32Array, n: number): number {
  return sigmoid(margin(m, feats, n));
}
