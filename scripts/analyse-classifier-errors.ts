// Error analysis of the injection model at the 1%-FPR point (classifier 2.7,
// docs/classifier.md "Classifier 2.7"): for each leave-one-source-out fold,
// which negatives sit above the fold's 1%-FPR threshold (by set and position)
// and what put them there (rule categories, the visible model window, hidden
// text, action_request), and — counts only unless --show-positives — what
// kind of positives fall below it. The fold models are the recipe's, trained
// as eval-classifier.ts trains them, and cached (--cache DIR) so that a scoring
// change can be measured on the same fold models without retraining.
//   npx tsx scripts/analyse-classifier-errors.ts [--sources deepset,bipia] [--dev] [--recipe '{…}'] [--cache /tmp/clf-folds]
//        [--bundle '{"someRunTimeOption":true}'] [--out /tmp/analysis.json] [--show-positives]
// Positives of a held-out source are the test set: read their texts only with
// --show-positives, and say so wherever a design used them.
import { writeFileSync } from 'node:fs';
import { requireDataDir } from './lib-classifier/data.js';
import { ATTACK_SOURCES, type AttackSource, type Msg } from './lib-classifier/loso.js';
import { foldModel as foldModelCached } from './lib-classifier/fold-cache.js';
import { bundleOf, evalSets, SHIPPED_RECIPE, type Recipe, type V2Model } from './lib-classifier/recipe-v2.js';
import { figuresFor, scoreWith, thresholdFor } from './lib-classifier/loso-eval.js';
import { recallAtFpr } from './lib-classifier/metrics.js';
import { explainMessage, type Explanation } from './lib-classifier/explain.js';
import type { InjectionBundle } from '../src/classifier/model.js';

requireDataDir();
const argOf = (name: string) => (process.argv.indexOf(name) >= 0 ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const dev = process.argv.includes('--dev');
const recipe: Recipe = { ...SHIPPED_RECIPE, ...(argOf('--recipe') ? (JSON.parse(argOf('--recipe')!) as Partial<Recipe>) : {}), ...(dev ? { trees: 60 } : {}) };
const bundleOpts = argOf('--bundle') ? (JSON.parse(argOf('--bundle')!) as Partial<InjectionBundle>) : {};
const sources = (argOf('--sources')?.split(',') ?? [...ATTACK_SOURCES]) as AttackSource[];
const cacheDir = argOf('--cache');
const showPositives = process.argv.includes('--show-positives');
const t0 = Date.now();
const log = (s: string) => process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(0)}s] ${s}\n`);
const out = (s = '') => process.stdout.write(s + '\n');

const foldModel = (s: AttackSource): V2Model => foldModelCached(s, recipe, cacheDir, log);

const sets = evalSets(dev ? 100 : 250);
const tally = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
const fmt = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ');

// --sweep '[{}, {"windowCountCorrection":0.5}]': score the (cached) fold models with each set of run-time
// options and print the table figures, plus a DESIGN figure that reads no held-out attack: the
// evaluation side of the fold's TRAINING sources (attacks the fold model never saw, of sources it
// trained on) against the same negatives.
const sweepArg = argOf('--sweep');
if (sweepArg) {
  const variants = JSON.parse(sweepArg) as Partial<InjectionBundle>[];
  const ins = evalSets(dev ? 100 : 250, true);
  const worst = variants.map(() => ({ wa: 1, ea: 1, wr: 1, er: 1, dw: 1, de: 1 }));
  const negAll = variants.map(() => [] as number[]);
  const posAll = variants.map(() => [] as number[]);
  for (const s of sources) {
    const base = bundleOf(foldModel(s));
    variants.forEach((v, k) => {
      const b: InjectionBundle = { ...base, ...v };
      const sc = (m: Msg) => scoreWith(b, m);
      const neg = sets.negatives.map(sc);
      negAll[k].push(...neg);
      const p = sets.positives.get(s)!;
      const pw = p.written.map(sc);
      const pe = p.embedded.map((m) => ({ s: sc(m), pos: m.position }));
      posAll[k].push(...pw, ...pe.map((x) => x.s));
      const f = figuresFor(s, neg, pw, pe);
      const dw: number[] = [];
      const de: number[] = [];
      for (const t of ATTACK_SOURCES) {
        if (t === s) continue;
        const q = ins.positives.get(t)!;
        dw.push(...q.written.map(sc));
        de.push(...q.embedded.map(sc));
      }
      const d = figuresFor(s, neg, dw, de.map((x) => ({ s: x })));
      const w = worst[k];
      w.wa = Math.min(w.wa, f.writtenAuc); w.ea = Math.min(w.ea, f.embeddedAuc); w.wr = Math.min(w.wr, f.writtenRecall); w.er = Math.min(w.er, f.embeddedRecall);
      w.dw = Math.min(w.dw, d.writtenRecall); w.de = Math.min(w.de, d.embeddedRecall);
      out(`${s.padEnd(15)} ${JSON.stringify(v).padEnd(40)} held-out ${f.writtenAuc.toFixed(3)} / ${f.embeddedAuc.toFixed(3)} / ${f.writtenRecall.toFixed(3)} / ${f.embeddedRecall.toFixed(3)}   DESIGN (eval side of training sources) AUC ${d.writtenAuc.toFixed(3)} / ${d.embeddedAuc.toFixed(3)} R@1% ${d.writtenRecall.toFixed(3)} / ${d.embeddedRecall.toFixed(3)}`);
    });
  }
  // the negatives' sets, in the order of negAll (every fold's negatives in turn)
  const negSet = sources.flatMap(() => sets.negatives.map((m) => m.source));
  variants.forEach((v, k) => {
    const w = worst[k];
    const q = thresholdFor(negAll[k], 0.005);
    out(`WORST ${JSON.stringify(v).padEnd(40)} held-out ${w.wa.toFixed(3)} / ${w.ea.toFixed(3)} / ${w.wr.toFixed(3)} / ${w.er.toFixed(3)}   DESIGN worst R@1% ${w.dw.toFixed(3)} / ${w.de.toFixed(3)}   quarantine point ${q.toPrecision(6)}`);
    // (2.14) at the re-chosen point: the share of the fold scores of the negatives at or above it, by set, and the trigger-word sentences
    const over = new Map<string, number>();
    let n = 0, trig = 0, trigN = 0;
    negAll[k].forEach((x, i) => {
      if (negSet[i] === 'own-benign/trigger') trigN++;
      if (x < q) return;
      n++;
      over.set(negSet[i], (over.get(negSet[i]) ?? 0) + 1);
      if (negSet[i] === 'own-benign/trigger') trig++;
    });
    out(`      at ${q.toPrecision(6)}: ${n} of ${negAll[k].length} negatives (${((100 * n) / negAll[k].length).toFixed(2)}%: ${fmt(over)}); trigger-word sentences ${trig} of ${trigN}`);
    if (k > 0) {
      const dn = negAll[k].filter((x, i) => x !== negAll[0][i]).length;
      const dp = posAll[k].filter((x, i) => x !== posAll[0][i]).length;
      out(`      scores that differ from the first variant: ${dn} of ${negAll[k].length} negatives, ${dp} of ${posAll[k].length} positives`);
    }
  });
  process.exit(0);
}
const dump: Record<string, unknown> = {};
for (const s of sources) {
  const bundle: InjectionBundle = { ...bundleOf(foldModel(s)), ...bundleOpts };
  const neg = sets.negatives.map((m) => scoreWith(bundle, m));
  const thr = recallAtFpr([], neg, 0.01).threshold;
  const p = sets.positives.get(s)!;
  const pos: { m: Msg; s: number }[] = [...p.written, ...p.embedded].map((m) => ({ m, s: scoreWith(bundle, m) }));
  out(`\n=== fold: held out ${s} — 1%-FPR threshold ${thr.toFixed(4)} (${neg.filter((x) => x > thr).length} of ${neg.length} negatives above)`);
  const over = sets.negatives.map((m, i) => ({ m, s: neg[i] })).filter((x) => x.s > thr).sort((a, b) => b.s - a.s);
  const bySet = new Map<string, number>();
  const byPos = new Map<string, number>();
  const byDriver = new Map<string, number>();
  const rows: (Explanation & { source: string; kind: string; position: string; score: number })[] = [];
  for (const { m, s: sc } of over) {
    const e = explainMessage(bundle, m, thr);
    tally(bySet, m.source);
    tally(byPos, m.position ?? 'as written');
    for (const d of e.drivers) tally(byDriver, d);
    rows.push({ ...e, source: m.source, kind: m.kind, position: m.position ?? 'written', score: sc });
  }
  out(`  negatives above, by set: ${fmt(bySet)}`);
  out(`  … by position: ${fmt(byPos)}`);
  out(`  … by what put them there (components without which the score falls to the threshold or below; "model" = visible window, "combined" = none alone): ${fmt(byDriver)}`);
  // the next negatives below the point (ranks 39-100): what the threshold would meet if the top were cleaned
  const next = sets.negatives.map((m, i) => ({ m, s: neg[i] })).filter((x) => x.s <= thr).sort((a, b) => b.s - a.s).slice(0, 62);
  const nextSet = new Map<string, number>();
  const nextDriver = new Map<string, number>();
  const nextRows = next.map(({ m, s: sc }) => {
    const e = explainMessage(bundle, m, Math.min(thr, 0.75));
    tally(nextSet, m.source);
    for (const d of e.drivers) tally(nextDriver, d);
    return { ...e, source: m.source, kind: m.kind, position: m.position ?? 'written', score: sc };
  });
  out(`  the next 62 negatives (ranks 39-100), by set: ${fmt(nextSet)}; by driver (at 0.75): ${fmt(nextDriver)}`);
  for (const r of [...rows, ...nextRows].slice(0, 100)) out(`    ${r.score.toFixed(3)} ${r.source}/${r.position} [${r.drivers.join('+')}] rules ${JSON.stringify(r.rules)} vis ${r.visible.toFixed(2)} hid ${r.hidden.toFixed(2)} act ${r.act.toFixed(2)} top: ${JSON.stringify(r.topWindow.slice(0, 160))} f=${r.topFeatures}`);
  // positives below the threshold (the test set: counts only unless --show-positives)
  const under = pos.filter((x) => x.s <= thr);
  const uPos = new Map<string, number>();
  const uTop = new Map<string, number>();
  for (const u of under) {
    tally(uPos, u.m.position ?? 'written');
    const e = explainMessage(bundle, u.m, thr);
    tally(uTop, e.visible >= 0.5 ? 'model ≥ 0.5' : Object.keys(e.rules).length ? 'some rule, low model' : 'no rule, model < 0.5');
  }
  out(`  positives at or below: ${under.length} of ${pos.length}; by position: ${fmt(uPos)}; by evidence: ${fmt(uTop)}`);
  if (showPositives) for (const u of under.slice(0, 40)) out(`    (positive) ${u.s.toFixed(3)} ${u.m.position ?? 'written'} ${JSON.stringify(u.m.payload?.slice(0, 160))}`);
  // how recall moves with the threshold: at k negatives above it (the 1% point is k = 38 of 3,832)
  const sortedNeg = [...neg].sort((a, b) => b - a);
  const wr = p.written.length;
  const rAt = (t: number, from: number, to: number) => pos.slice(from, to).filter((x) => x.s > t).length / Math.max(1, to - from);
  out(`  recall (written / embedded) with k negatives above the threshold: ${[5, 10, 20, 30, 38, 60, 100, 190].map((k) => `k=${k} (${sortedNeg[k].toFixed(3)}) ${rAt(sortedNeg[k], 0, wr).toFixed(3)}/${rAt(sortedNeg[k], wr, pos.length).toFixed(3)}`).join('  ')}`);
  dump[s] = { threshold: thr, over: rows, under: under.length, pos: pos.length, negScores: neg, negSources: sets.negatives.map((m) => `${m.source}/${m.position ?? 'written'}`), posScores: pos.map((x) => [x.m.position ?? 'written', Number(x.s.toFixed(4))]) };
}
const o = argOf('--out');
if (o) writeFileSync(o, JSON.stringify(dump, null, 1));
