// Trains the classifier's learned models from ../shared/data and
// scripts/classifier-data, and writes src/classifier/weights.ts.
//   npx tsx scripts/train-classifier.ts [--recipe '{"promptNegWeight":2}'] [--out /tmp/weights.ts] [--cache /tmp/folds]
// (--cache DIR: the leave-one-source-out fold models are read from the cache
// analyse-classifier-errors.ts --cache writes, when there — the same models a
// fresh run trains, deterministically — and written there when not)
// (--recipe overlays options on the shipped recipe and --out writes elsewhere:
// for trying a recipe; the committed weights come from the plain command)
// Training only ever sees the train side of the split in lib-classifier/data.ts.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { requireDataDir, dedupAndSplit, repoRoot, type Example } from './lib-classifier/data.js';
import { spamTask, parakweet, shortOwn } from './lib-classifier/corpora.js';
import { trainLR, quantize, scoreFloat, type TrainItem, type FloatModel } from './lib-classifier/lr.js';
import { docText, SPAM_CHARS, COLD_CHARS } from './lib-classifier/items.js';
import { coldItems, trainCold } from './lib-classifier/cold.js';
import { trainingMessages, trainV2, SHIPPED_RECIPE as BASE_RECIPE, type Recipe } from './lib-classifier/recipe-v2.js';
import { losoV2, thresholdFor } from './lib-classifier/loso-eval.js';
import { designAttacks, scoredOf, trainCombiner } from './lib-classifier/combiner.js';
import { bundleOf, evalSets } from './lib-classifier/recipe-v2.js';
import type { Combiner } from '../src/classifier/model.js';
import type { TreeSpec } from '../src/classifier/trees.js';
import { auc } from './lib-classifier/metrics.js';

const argOf = (name: string) => (process.argv.indexOf(name) >= 0 ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const SHIPPED_RECIPE: Recipe = { ...BASE_RECIPE, ...(argOf('--recipe') ? (JSON.parse(argOf('--recipe')!) as Partial<Recipe>) : {}) };
const VERSION = SHIPPED_RECIPE.name;
/** Benign mail allowed at or above QUARANTINE_THRESHOLD on the leave-one-source-out negatives (issue #12: ≤ 0.5%). */
const QUARANTINE_BENIGN_RATE = 0.005;

requireDataDir();
const t0 = Date.now();
const log = (s: string) => process.stdout.write(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${s}\n`);

function report(name: string, m: FloatModel, evalItems: TrainItem[]): void {
  const scores = evalItems.map((it) => scoreFloat(m, it.text));
  log(`${name}: held-out AUC (float weights, item level) ${auc(scores, evalItems.map((x) => x.label)).toFixed(4)} on ${evalItems.length} items`);
}

function pack(q: ReturnType<typeof quantize>) {
  log(`  quantized: ${q.nonzero} non-zero of ${1 << q.bits} weights`);
  return { bits: q.bits, bias: q.bias, scale: q.scale, data: q.data };
}

const models: Record<string, { bits: number; bias: number; scale: number; data: string }> = {};
const stats: Record<string, string> = {};

// ---- injection (v2, issue #12): sentence-pair windows of mail with attacks
// and benign counterparts embedded; n-gram model + trees over window features.
// The quarantine calibration is chosen on the leave-one-source-out negatives
// (one model per held-out attack source), so it reflects mail from sources
// the model never saw — not the shipped model's own training sources.
let trees: TreeSpec | null = null;
let calibration: { quarantineAt: number; benignRate: number; negatives: number } | null = null;
let combiner: Combiner | null = null;
// --cold-only (2.13): the injection, spam and request models, trees, options and calibration are
// copied from the committed weights.ts (checked first: their hash is recomputed and must equal the
// file's), and only the cold model is retrained — a full run trains those same models again
// (deterministic) and takes most of an hour on a loaded machine.
const coldOnly = process.argv.includes('--cold-only');
if (coldOnly) {
  const { WEIGHTS } = await import('../src/classifier/weights.js');
  for (const [k, v] of Object.entries(WEIGHTS.models)) models[k] = v;
  Object.assign(stats, WEIGHTS.trained);
  trees = WEIGHTS.trees.injection as TreeSpec;
  calibration = WEIGHTS.calibration.injection ?? null;
  combiner = ((WEIGHTS.options.injection as { combiner?: Combiner }).combiner ?? null);
  const opts = WEIGHTS.options.injection as Record<string, unknown>;
  for (const k of ['gradedHidden', 'ignoreSeparatorRuns', 'hiddenNeedsInstruction', 'windowCountCorrection', 'windowCountHidden', 'goalRules', 'foldObfuscation'] as const)
    if ((opts[k] ?? false) !== (SHIPPED_RECIPE[k] ?? (k === 'windowCountCorrection' ? 0 : false))) throw new Error(`--cold-only: the committed weights' option ${k} differs from the shipped recipe's`);
  if (weightsHash() !== WEIGHTS.hash) throw new Error('--cold-only: the committed weights do not hash to their own hash');
  log(`--cold-only: injection, spam and request models, trees and calibration of ${WEIGHTS.version}+${WEIGHTS.hash.slice(0, 8)} kept`);
} else {
  if (process.argv.includes('--no-calibration')) log('injection: --no-calibration: keeping quarantineAt 0.95 (uncalibrated)');
  else {
    log('injection: leave-one-source-out folds for the quarantine calibration');
    // 2.7: the same fold models also scored without windowCountCorrection (2.6's scoring but for the 2.7 rule)
    const variantName = SHIPPED_RECIPE.windowCountCorrection ? 'windowCountCorrection' : 'hiddenNeedsInstruction';
    const run = losoV2(log, undefined, SHIPPED_RECIPE, SHIPPED_RECIPE.windowCountCorrection ? [{ windowCountCorrection: 0 }] : SHIPPED_RECIPE.hiddenNeedsInstruction ? [{ hiddenNeedsInstruction: false }] : [], undefined, argOf('--cache'));
    const at = thresholdFor(run.negScores, QUARANTINE_BENIGN_RATE);
    calibration = { quarantineAt: Number(at.toPrecision(6)), benignRate: QUARANTINE_BENIGN_RATE, negatives: run.negScores.length };
    // the same figures as eval-classifier.ts's AFTER columns (same folds, sets and scoring)
    for (const f of run.figures) log(`  held out ${f.source.padEnd(15)} n ${f.n}  AUC written ${f.writtenAuc.toFixed(3)} embedded ${f.embeddedAuc.toFixed(3)}  R@1% written ${f.writtenRecall.toFixed(3)} embedded ${f.embeddedRecall.toFixed(3)}`);
    log(`  WORST SOURCE ${(['writtenAuc', 'embeddedAuc', 'writtenRecall', 'embeddedRecall'] as const).map((k) => Math.min(...run.figures.map((f) => f[k])).toFixed(3)).join(' / ')}`);
    const hid = (r: typeof run) => r.figures.map((f) => (f.hidden ? `≥0.5 ${f.hidden.atHalf}, over the 1%-FPR point ${f.hidden.overFpr}, max ${f.hidden.max.toFixed(3)}` : '—')).join(' / ');
    log(`  benign hidden text (held-out, ${run.figures[0]?.hidden?.n ?? 0} messages) per fold: ${hid(run)}`);
    for (const v of run.variants ?? []) {
      log(`  the same fold models without ${variantName}:`);
      for (const f of v.figures) log(`    held out ${f.source.padEnd(15)} n ${f.n}  AUC written ${f.writtenAuc.toFixed(3)} embedded ${f.embeddedAuc.toFixed(3)}  R@1% written ${f.writtenRecall.toFixed(3)} embedded ${f.embeddedRecall.toFixed(3)}  hidden-html ${f.byPosition['hidden-html'].toFixed(3)}`);
      log(`    WORST SOURCE ${(['writtenAuc', 'embeddedAuc', 'writtenRecall', 'embeddedRecall'] as const).map((k) => Math.min(...v.figures.map((f) => f[k])).toFixed(3)).join(' / ')}`);
      log(`    benign hidden text per fold: ${hid(v)}; quarantine point (raw) would be ${thresholdFor(v.negScores, QUARANTINE_BENIGN_RATE).toPrecision(6)}`);
    }
    for (const f of run.figures) log(`  hidden-html embedded recall at 1% FPR, held out ${f.source}: ${f.byPosition['hidden-html'].toFixed(3)}`);
    log(`injection: quarantine point (raw) ${calibration.quarantineAt} keeps ≤ ${QUARANTINE_BENIGN_RATE * 100}% of ${run.negScores.length} held-out benign scores at or above it`);
  }
  log('injection: final model (all sources, train side of the split)');
  const m = trainV2(trainingMessages(null, SHIPPED_RECIPE), log, SHIPPED_RECIPE);
  models.injection = pack(quantize(m.ngram));
  if (m.doc) models.injection_doc = pack(quantize(m.doc));
  trees = m.trees;
  if (SHIPPED_RECIPE.combiner) {
    // 2.9: the learned combination of the final model, on its scores of every source's evaluation side and the negatives
    const b = bundleOf(m);
    const c = trainCombiner(designAttacks(null).map((x) => scoredOf(b, x)), evalSets().negatives.map((x) => scoredOf(b, x)), SHIPPED_RECIPE.combiner.use, SHIPPED_RECIPE.combiner.l2);
    combiner = { w: c.w.map((x) => Number(x.toPrecision(6))), bias: Number(c.bias.toPrecision(6)) };
    log(`injection: learned combination ${JSON.stringify(combiner)}`);
  }
  stats.injection = `${m.rows} windows (${m.positives} attack windows)`;
}

// Short benign mail (codes, notices, one-line replies), train side only:
// the spam and cold models had never seen a three-word email and called
// "hello" spam (0.997) and cold (0.95).
const shortBenignTrain: Example[] = dedupAndSplit(shortOwn().map((x) => x.ex)).train.filter((ex) => ex.label === 0);

// ---- spam
if (!coldOnly) {
  const { train, evalSet, dropped } = dedupAndSplit(spamTask());
  const tr: TrainItem[] = train.map((ex) => ({ text: docText(ex).slice(0, SPAM_CHARS), label: ex.label }));
  for (const ex of shortBenignTrain) tr.push({ text: docText(ex).slice(0, SPAM_CHARS), label: 0 });
  const ev: TrainItem[] = evalSet.map((ex) => ({ text: docText(ex).slice(0, SPAM_CHARS), label: ex.label }));
  log(`spam: ${train.length} train / ${evalSet.length} eval (${dropped} duplicates dropped)`);
  const m = trainLR(tr, { bits: 17, epochs: 4, lr: 0.15, l2: 1e-6, seed: 2, balance: true });
  report('spam', m, ev);
  models.spam = pack(quantize(m));
  stats.spam = `${train.length} examples`;
}

// ---- request (parakweet sentences)
if (!coldOnly) {
  const { train, evalSet, dropped } = dedupAndSplit(parakweet());
  const tr = train.map((ex) => ({ text: ex.text.toLowerCase(), label: ex.label }));
  const ev = evalSet.map((ex) => ({ text: ex.text.toLowerCase(), label: ex.label }));
  log(`request: ${train.length} train / ${evalSet.length} eval (${dropped} duplicates dropped)`);
  const m = trainLR(tr, { bits: 16, epochs: 10, lr: 0.15, l2: 1e-5, seed: 3, balance: true });
  report('request', m, ev);
  models.request = pack(quantize(m));
  stats.request = `${train.length} examples`;
}

// ---- cold (own hand-written examples by template and by style + real ham as transactional-side negatives)
{
  const { items, evalSet, train } = coldItems(null);
  const ev: TrainItem[] = evalSet.filter((ex) => ex.source !== 'real-ham').map((ex) => ({ text: docText(ex).slice(0, COLD_CHARS), label: ex.label }));
  log(`cold: ${items.length} train items (${train.filter((x) => x.source !== 'real-ham').length} own templates + the style set) / ${ev.length} own eval`);
  const m = trainCold(items);
  report('cold', m, ev);
  models.cold = pack(quantize(m));
  stats.cold = `${items.length} examples`;
}

function treeJsonOf(trees: TreeSpec | null): string {
  return trees
    ? `{ base: ${trees.base}, feat: ${JSON.stringify(trees.feat)}, thr: ${JSON.stringify(trees.thr.map((x) => Number(x.toPrecision(9))))}, left: ${JSON.stringify(trees.left)}, right: ${JSON.stringify(trees.right)}, val: ${JSON.stringify(trees.val)}, roots: ${JSON.stringify(trees.roots)} }`
    : 'undefined';
}
function weightsHash(): string {
  return createHash('sha256')
    .update(JSON.stringify(['injection', 'spam', 'request', 'cold', ...(models.injection_doc ? ['injection_doc'] : [])].map((k) => models[k])))
    .update(treeJsonOf(trees))
    .update(JSON.stringify(calibration))
    .update(JSON.stringify({ gradedHidden: SHIPPED_RECIPE.gradedHidden, ...(SHIPPED_RECIPE.ignoreSeparatorRuns ? { ignoreSeparatorRuns: true } : {}), ...(SHIPPED_RECIPE.hiddenNeedsInstruction ? { hiddenNeedsInstruction: true } : {}), ...(SHIPPED_RECIPE.windowCountCorrection ? { windowCountCorrection: SHIPPED_RECIPE.windowCountCorrection } : {}), ...(SHIPPED_RECIPE.windowCountHidden ? { windowCountHidden: true } : {}), ...(SHIPPED_RECIPE.goalRules ? { goalRules: true } : {}), ...(SHIPPED_RECIPE.foldObfuscation ? { foldObfuscation: true } : {}), ...(combiner ? { combiner } : {}) }))
    .digest('hex');
}
const treeJson = treeJsonOf(trees);
const hash = weightsHash();
const body =
  `// GENERATED by scripts/train-classifier.ts on ${new Date().toISOString().slice(0, 10)} - do not edit (ASCII only: V8 keeps a module with any other character as a two-byte string, twice the memory).\n` +
  `// int8 weights (base64), one scale per model; the injection trees; the quarantine calibration.\n` +
  `// hash = SHA-256 of the models array [injection, spam, request, cold, injection_doc], the trees and the calibration.\n` +
  `export const WEIGHTS = {\n  format: 2,\n  version: '${VERSION}',\n  hash: '${hash}',\n  trained: ${JSON.stringify(stats)},\n  models: {\n` +
  Object.entries(models)
    .map(([k, v]) => `    ${k}: { bits: ${v.bits}, bias: ${v.bias}, scale: ${v.scale}, data: '${v.data}' },`)
    .join('\n') +
  `\n  } as Record<string, { bits: number; bias: number; scale: number; data: string }>,\n` +
  `  trees: { injection: ${treeJson} },\n` +
  `  options: { injection: { gradedHidden: ${SHIPPED_RECIPE.gradedHidden}, ignoreSeparatorRuns: ${SHIPPED_RECIPE.ignoreSeparatorRuns}, hiddenNeedsInstruction: ${SHIPPED_RECIPE.hiddenNeedsInstruction === true}, windowCountCorrection: ${SHIPPED_RECIPE.windowCountCorrection ?? 0}, windowCountHidden: ${SHIPPED_RECIPE.windowCountHidden === true}${SHIPPED_RECIPE.goalRules ? ', goalRules: true' : ''}${SHIPPED_RECIPE.foldObfuscation ? ', foldObfuscation: true' : ''}${combiner ? `, combiner: ${JSON.stringify(combiner)}` : ''} } },\n` +
  `  calibration: { injection: ${calibration ? `{ quarantineAt: ${calibration.quarantineAt}, benignRate: ${calibration.benignRate}, negatives: ${calibration.negatives} }` : 'undefined'} },\n};\n`;
const out = argOf('--out') ?? path.join(repoRoot, 'src/classifier/weights.ts');
writeFileSync(out, body);
log(`wrote ${path.relative(repoRoot, out)} (${(body.length / 1024).toFixed(0)} KB), weights hash ${hash.slice(0, 8)}`);
