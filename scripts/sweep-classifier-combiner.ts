// Classifier 2.9 (docs/classifier.md "Classifier 2.9"): the learned combination
// of the injection score's parts, measured on the cached leave-one-source-out
// fold models. Per fold (held-out source s), the combination is trained only on
// that fold's TRAINING sources — the evaluation side of their attacks (texts the
// fold model never trained on) — against the shared negatives, cross-fitted in
// two halves by message group: every negative and attack is scored by the half
// that did not see it. Prints the DESIGN figure (training sources only) per
// variant; the held-out source's figures only with --held-out (write the
// choice down first).
//   npx tsx scripts/sweep-classifier-combiner.ts --cache /tmp/clf9/folds [--recipe 2.7] [--held-out] [--sources a,b] [--nested]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { requireDataDir } from './lib-classifier/data.js';
import { ATTACK_SOURCES, type AttackSource, type Msg, type Position } from './lib-classifier/loso.js';
import { foldKey, foldModel } from './lib-classifier/fold-cache.js';
import { bundleOf, evalSets, RECIPES } from './lib-classifier/recipe-v2.js';
import { figuresFor, scoreWith, thresholdFor, type SourceFigures } from './lib-classifier/loso-eval.js';
import { crossFit, crossScore, scoredOf, type Scored } from './lib-classifier/combiner.js';
import { COMBINER_FEATURES } from '../src/classifier/injection.js';

requireDataDir();
const argOf = (name: string) => (process.argv.indexOf(name) >= 0 ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const recipe = RECIPES[argOf('--recipe') ?? '2.7'];
const cacheDir = argOf('--cache');
const heldOut = process.argv.includes('--held-out');
const sources = (argOf('--sources')?.split(',') ?? [...ATTACK_SOURCES]) as AttackSource[];
const t0 = Date.now();
const log = (s: string) => process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(0)}s] ${s}\n`);
const out = (s = '') => process.stdout.write(s + '\n');
const f3 = (x: number) => x.toFixed(3);

const ALL = [...COMBINER_FEATURES];
const VARIANTS: { name: string; use: readonly string[] | null; l2: number }[] = [
  { name: 'noisy-OR (no combination)', use: null, l2: 0 },
  { name: 'window parts', use: ['score', 'vis_max', 'vis_second', 'windows', 'vis_high'], l2: 1 },
  { name: 'all parts', use: ALL, l2: 1 },
  { name: 'all parts, l2 30', use: ALL, l2: 30 },
];

const sets = evalSets(250);
const ins = evalSets(250, true);
type Row = { wa: number; ea: number; wr: number; er: number };
const worst = VARIANTS.map(() => ({ d: { wa: 1, ea: 1, wr: 1, er: 1 } as Row, h: { wa: 1, ea: 1, wr: 1, er: 1 } as Row, neg: [] as number[], held: [] as SourceFigures[] }));
const upd = (w: Row, f: SourceFigures) => {
  w.wa = Math.min(w.wa, f.writtenAuc); w.ea = Math.min(w.ea, f.embeddedAuc); w.wr = Math.min(w.wr, f.writtenRecall); w.er = Math.min(w.er, f.embeddedRecall);
};
out(`recipe ${recipe.name}; combination features ${ALL.join(', ')}`);
type FoldScored = { neg: Scored[]; dW: Scored[]; dE: Scored[]; hW: Scored[]; hE: { x: Scored; pos?: Position }[] };
const revive = (x: Scored) => ({ ...x, f: Float64Array.from(x.f as unknown as number[]) });
/**
 * The scored inputs of the model that holds out `held` (one source: a fold; two: a nested fold), cached
 * beside the fold models: the negatives, the design attacks (evaluation side of the sources it trained
 * on; folds only) and the attacks of `test` (for a fold: the held-out source).
 */
function foldScored(held: AttackSource | AttackSource[], test: AttackSource): FoldScored {
  const name = typeof held === 'string' ? held : [...held].sort().join('+');
  const file = cacheDir ? path.join(cacheDir, `scored-${name}${typeof held === 'string' ? '' : '-' + test}-${foldKey(recipe)}.json`) : null;
  if (file && existsSync(file)) {
    const j = JSON.parse(readFileSync(file, 'utf8')) as FoldScored;
    return { neg: j.neg.map(revive), dW: j.dW.map(revive), dE: j.dE.map(revive), hW: j.hW.map(revive), hE: j.hE.map((e) => ({ x: revive(e.x), pos: e.pos })) };
  }
  const bundle = bundleOf(foldModel(held, recipe, cacheDir, log));
  const sc = (m: Msg) => scoredOf(bundle, m);
  const neg = sets.negatives.map(sc);
  // the combination path reproduces classifyInbound's score
  for (let i = 0; i < 300; i++) if (neg[i].base !== scoreWith(bundle, sets.negatives[i])) throw new Error(`fold ${name}: negative ${i}: ${neg[i].base} vs ${scoreWith(bundle, sets.negatives[i])}`);
  const dW: Scored[] = [];
  const dE: Scored[] = [];
  if (typeof held === 'string') {
    for (const t of ATTACK_SOURCES) {
      if (t === held) continue;
      const q = ins.positives.get(t)!;
      dW.push(...q.written.map(sc));
      dE.push(...q.embedded.map(sc));
    }
  }
  const p = sets.positives.get(test)!;
  const fs = { neg, dW, dE, hW: p.written.map(sc), hE: p.embedded.map((m) => ({ x: sc(m), pos: m.position })) };
  if (file) writeFileSync(file, JSON.stringify(fs, (k, v) => (v instanceof Float64Array ? [...v] : v)));
  return fs;
}

// --nested (2.9's second look): the combination learns from OUT-OF-SOURCE scores — for held-out s, the
// nested models without s and t score t's attacks and the negatives — and is applied to the fold model of s.
// Inner design figure (no held-out attack): for each (s, t), a combination learned from the other inner
// sources' rows scores t's rows.
if (process.argv.includes('--nested')) {
  const NV: { name: string; use: readonly string[] | null }[] = [
    { name: 'noisy-OR (no combination)', use: null },
    { name: 'window parts (nested)', use: VARIANTS[1].use },
    { name: 'all parts (nested)', use: ALL },
  ];
  const inW = NV.map(() => ({ wr: 1, er: 1 }));
  const hoW = NV.map(() => ({ w: { wa: 1, ea: 1, wr: 1, er: 1 } as Row, neg: [] as number[] }));
  for (const s of sources) {
    const inner = new Map<AttackSource, FoldScored>();
    for (const t of ATTACK_SOURCES) if (t !== s) inner.set(t, foldScored([s, t], t));
    const outer = heldOut ? foldScored(s, s) : null;
    log(`fold ${s}: nested rows scored`);
    NV.forEach((v, k) => {
      const rowsOf = (ts: AttackSource[]) => ({ pos: ts.flatMap((t) => [...inner.get(t)!.hW, ...inner.get(t)!.hE.map((e) => e.x)]), neg: ts.flatMap((t) => inner.get(t)!.neg) });
      const innerLine: string[] = [];
      for (const t of inner.keys()) {
        let score: (x: Scored) => number = (x) => x.base;
        if (v.use) {
          const r = rowsOf([...inner.keys()].filter((u) => u !== t));
          const cs = crossFit(r.pos, r.neg, v.use, 1);
          score = (x) => crossScore(cs, x);
        }
        const q = inner.get(t)!;
        const f = figuresFor(t, q.neg.map(score), q.hW.map(score), q.hE.map((e) => ({ s: score(e.x) })));
        inW[k].wr = Math.min(inW[k].wr, f.writtenRecall);
        inW[k].er = Math.min(inW[k].er, f.embeddedRecall);
        innerLine.push(`${t} ${f3(f.writtenRecall)} / ${f3(f.embeddedRecall)}`);
      }
      let line = `${s.padEnd(15)} ${v.name.padEnd(28)} INNER DESIGN R@1% ${innerLine.join(', ')}`;
      if (outer) {
        let score: (x: Scored) => number = (x) => x.base;
        if (v.use) {
          const r = rowsOf([...inner.keys()]);
          const cs = crossFit(r.pos, r.neg, v.use, 1);
          score = (x) => crossScore(cs, x);
        }
        const ns = outer.neg.map(score);
        hoW[k].neg.push(...ns);
        const h = figuresFor(s, ns, outer.hW.map(score), outer.hE.map((e) => ({ s: score(e.x), pos: e.pos })));
        upd(hoW[k].w, h);
        line += `   held-out ${f3(h.writtenAuc)} / ${f3(h.embeddedAuc)} / ${f3(h.writtenRecall)} / ${f3(h.embeddedRecall)}`;
      }
      out(line);
    });
  }
  NV.forEach((v, k) => {
    const q = heldOut ? thresholdFor(hoW[k].neg, 0.005) : NaN;
    out(`WORST ${v.name.padEnd(28)} INNER DESIGN worst R@1% ${f3(inW[k].wr)} / ${f3(inW[k].er)}${heldOut ? `   held-out ${f3(hoW[k].w.wa)} / ${f3(hoW[k].w.ea)} / ${f3(hoW[k].w.wr)} / ${f3(hoW[k].w.er)}   quarantine point ${q.toPrecision(6)} (${hoW[k].neg.filter((x) => x >= q).length} of ${hoW[k].neg.length})` : ''}`);
  });
  process.exit(0);
}

for (const s of sources) {
  const { neg, dW, dE, hW, hE } = foldScored(s, s);
  log(`fold ${s}: scored ${neg.length} negatives, ${dW.length + dE.length} design attacks, ${hW.length + hE.length} held-out attacks`);
  VARIANTS.forEach((v, k) => {
    let score: (x: Scored) => number = (x) => x.base;
    if (v.use) {
      const cs = crossFit([...dW, ...dE], neg, v.use, v.l2);
      score = (x) => crossScore(cs, x);
      if (s === sources[0]) out(`  ${v.name}: half-0 weights ${ALL.map((n, j) => `${n} ${cs[0].w[j].toFixed(2)}`).join(', ')}, bias ${cs[0].bias.toFixed(2)}`);
    }
    const ns = neg.map(score);
    worst[k].neg.push(...ns);
    const d = figuresFor(s, ns, dW.map(score), dE.map((x) => ({ s: score(x) })));
    upd(worst[k].d, d);
    let line = `${s.padEnd(15)} ${v.name.padEnd(28)} DESIGN AUC ${f3(d.writtenAuc)} / ${f3(d.embeddedAuc)} R@1% ${f3(d.writtenRecall)} / ${f3(d.embeddedRecall)}`;
    if (heldOut) {
      const h = figuresFor(s, ns, hW.map(score), hE.map((e) => ({ s: score(e.x), pos: e.pos })));
      upd(worst[k].h, h);
      worst[k].held.push(h);
      line += `   held-out ${f3(h.writtenAuc)} / ${f3(h.embeddedAuc)} / ${f3(h.writtenRecall)} / ${f3(h.embeddedRecall)}`;
    }
    out(line);
  });
}
VARIANTS.forEach((v, k) => {
  const w = worst[k];
  const q = thresholdFor(w.neg, 0.005);
  const quarantined = w.neg.filter((x) => x >= q).length;
  out(`WORST ${v.name.padEnd(28)} DESIGN worst R@1% ${f3(w.d.wr)} / ${f3(w.d.er)} (AUC ${f3(w.d.wa)} / ${f3(w.d.ea)})${heldOut ? `   held-out ${f3(w.h.wa)} / ${f3(w.h.ea)} / ${f3(w.h.wr)} / ${f3(w.h.er)}` : ''}   quarantine point ${q.toPrecision(6)} (${quarantined} of ${w.neg.length} negatives at or above)`);
});
