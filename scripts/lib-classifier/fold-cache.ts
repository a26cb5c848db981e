// The leave-one-source-out fold models, cached on disk (classifier 2.7/2.8):
// analyse-classifier-errors.ts trains them and train-classifier.ts --cache
// reads the same files, so an analysis or a sweep and the training run of
// the shipped weights use one set of fold models. Training is deterministic
// (seeded hashes, no parallelism): a cached fold model is the one a fresh run
// would train — docs/classifier.md checked that to the last digit (2.7).
// The key is the recipe without its name and its run-time options (they
// change no model).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { AttackSource } from './loso.js';
import { trainingMessages, trainV2, type Recipe, type V2Model } from './recipe-v2.js';

export function foldKey(recipe: Recipe): string {
  const { name: _n, gradedHidden: _g, ignoreSeparatorRuns: _i, hiddenNeedsInstruction: _h, windowCountCorrection: _w, windowCountHidden: _wh, combiner: _c, goalRules: _gr, foldObfuscation: _fo, ...trained } = recipe;
  return createHash('sha256').update(JSON.stringify(trained)).digest('hex').slice(0, 10);
}

/**
 * The fold model that holds out `s` (or, 2.9's nested folds, every source of
 * `s`): read from `cacheDir` when there, else trained (and written there).
 */
export function foldModel(s: AttackSource | readonly AttackSource[], recipe: Recipe, cacheDir: string | undefined, log: (s: string) => void): V2Model {
  const file = cacheDir ? path.join(cacheDir, `${typeof s === 'string' ? s : [...s].sort().join('+')}-${foldKey(recipe)}.json`) : null;
  if (file && existsSync(file)) {
    const j = JSON.parse(readFileSync(file, 'utf8'));
    const f32 = (b: string) => new Float32Array(new Uint8Array(Buffer.from(b, 'base64')).buffer);
    log(`fold ${s}: cached model ${file}`);
    return { ...j, recipe, ngram: { ...j.ngram, w: f32(j.ngram.w) }, doc: j.doc ? { ...j.doc, w: f32(j.doc.w) } : null };
  }
  log(`fold ${s}: training (${recipe.name})`);
  const m = trainV2(trainingMessages(s, recipe), log, recipe);
  if (file) {
    mkdirSync(cacheDir!, { recursive: true });
    const b64 = (w: Float32Array) => Buffer.from(w.buffer, w.byteOffset, w.byteLength).toString('base64');
    writeFileSync(file, JSON.stringify({ ...m, recipe: undefined, ngram: { ...m.ngram, w: b64(m.ngram.w) }, doc: m.doc ? { ...m.doc, w: b64(m.doc.w) } : null }));
  }
  return m;
}
