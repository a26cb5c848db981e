// Issue #12, "a real encoder whose weights ship inside a registry package":
// leave-one-source-out with and without a pretrained sentence encoder's
// window embedding as a tree input (scripts/lib-classifier/encoder.ts), same
// folds, same negatives, same recipe otherwise. The encoder costs ~15 ms per
// window on this machine, so the recipe is the shipped one reduced (fewer
// training attacks per source, 60 trees, ≤ 100 test attacks per source) and
// BOTH arms use that reduced recipe: a matched A/B, not the headline table.
//   MAILAGENT_ENCODER_DIR=/tmp/enc npx tsx scripts/eval-classifier-encoder.ts [--attacks 200] [--payloads 1500] [--hosts 1200] [--other 2500] [--per-source 60]
import { requireDataDir } from './lib-classifier/data.js';
import { evalSets, messageWindows, trainingMessages, SHIPPED_RECIPE, CAPS, type Recipe } from './lib-classifier/recipe-v2.js';
import { losoV2, scoreWith, type LosoRun } from './lib-classifier/loso-eval.js';
import { ensureEmbeddings, windowTextOf, ENC_MAX_CHARS } from './lib-classifier/encoder.js';
import { injectionBundle } from '../src/classifier/model.js';
import { ATTACK_SOURCES, type AttackSource } from './lib-classifier/loso.js';

requireDataDir();
const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
};
const t0 = Date.now();
const log = (s: string) => process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(0)}s] ${s}\n`);
const out = (s = '') => process.stdout.write(s + '\n');
const f3 = (x: number) => x.toFixed(3);

const base: Recipe = { ...SHIPPED_RECIPE, name: 'reduced', attacksPerSource: arg('--attacks', 200), benignPayloads: arg('--payloads', 1500), hosts: arg('--hosts', 1200), otherBenign: arg('--other', 2500), trees: 60 };
const withEnc: Recipe = { ...base, name: 'reduced+encoder', encoder: true };
const sets = evalSets(arg('--per-source', 60));
// --sources a,b: hold out only these sources (the machine's time; default all five)
const srcArg = process.argv.indexOf('--sources');
const SOURCES = (srcArg >= 0 ? process.argv[srcArg + 1].split(',') : [...ATTACK_SOURCES]) as AttackSource[];
for (const s of ATTACK_SOURCES) if (!SOURCES.includes(s)) sets.positives.delete(s);
// --negatives N: a smoke test on the first N negatives only (never a reported figure)
if (process.argv.includes('--negatives')) sets.negatives = sets.negatives.slice(0, arg('--negatives', 0));
// --neg-every K: every K-th negative (a smaller, still mixed set; both arms use the same one)
if (process.argv.includes('--neg-every')) sets.negatives = sets.negatives.filter((_, i) => i % arg('--neg-every', 1) === 0);

// every window the training side and the run-time scoring will ask for
const texts = new Set<string>();
for (const m of trainingMessages(null, base)) for (const r of messageWindows(m, CAPS.windowsPerMessage, base).rows) texts.add(windowTextOf(r.parts));
const nTrain = texts.size;
const recorder = { ...injectionBundle(), windowExtra: (t: string) => (texts.add(t), 0) };
const evalMsgs = [...sets.negatives, ...[...sets.positives.values()].flatMap((p) => [...p.written, ...p.embedded])];
for (const m of evalMsgs) scoreWith(recorder, m);
log(`windows: ${nTrain} training, ${texts.size - nTrain} more at evaluation (${evalMsgs.length} messages)`);
const enc = await ensureEmbeddings(texts, log);
log(`embedded ${enc.computed} windows at ${enc.msPerText.toFixed(1)} ms per window (${enc.cached} cached)`);

const runs: [Recipe, LosoRun][] = [];
for (const r of [base, withEnc]) runs.push([r, losoV2(log, sets, r, [], SOURCES)]);

out(`leave-one-source-out, reduced recipe (≤ ${base.attacksPerSource} training attacks per source, ${base.benignPayloads} benign payloads, ${base.hosts} host and ${base.otherBenign} other benign emails, ${base.trees} trees, ≤ ${arg('--per-source', 60)} test attacks per source), ${sets.negatives.length} negatives`);
out('| held-out source | n | ' + runs.map(([r]) => `${r.name} AUC written / embedded / R@1% written / embedded`).join(' | ') + ' |');
for (let i = 0; i < SOURCES.length; i++) {
  const cells = runs.map(([, run]) => {
    const f = run.figures[i];
    return `${f3(f.writtenAuc)} / ${f3(f.embeddedAuc)} / ${f3(f.writtenRecall)} / ${f3(f.embeddedRecall)}`;
  });
  out(`| ${SOURCES[i]} | ${runs[0][1].figures[i].n} | ${cells.join(' | ')} |`);
}
const worst = (run: LosoRun, k: 'writtenAuc' | 'embeddedAuc' | 'writtenRecall' | 'embeddedRecall') => Math.min(...run.figures.map((f) => f[k]));
out(`| worst of these | | ${runs.map(([, run]) => `${f3(worst(run, 'writtenAuc'))} / ${f3(worst(run, 'embeddedAuc'))} / ${f3(worst(run, 'writtenRecall'))} / ${f3(worst(run, 'embeddedRecall'))}`).join(' | ')} |`);
out(`encoder: first ${ENC_MAX_CHARS} characters of each window; ${enc.msPerText.toFixed(1)} ms per window (tfjs CPU backend, batches of 64, one core, nice 5)`);
log('done');
