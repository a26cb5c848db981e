// Evaluates the classifier. Injection: leave-one-source-out first (one model
// per held-out attack source, before = recipe 2.3 (--before 2.0|2.1|2.2 for older ones), after = the shipped recipe; --with-v1 adds the v1 recipe), then the
// shipped weights on the in-source split (secondary). The other sections
// evaluate the committed weights on the held-out side of the split in
// lib-classifier/data.ts.
//   npx tsx scripts/eval-classifier.ts [--no-baseline] [--before 2.0|2.1|2.2|2.3] [--with-v1] [--only injection|cold|other]
//   npx tsx scripts/eval-classifier.ts --only injection --dev [--after '{"promptNegWeight":3}']   [--sources deepset,bipia]   (a reduced DEV figure)
//   npx tsx scripts/eval-classifier.ts --only injection --cache /tmp/folds --before 2.7 --after-recipe 2.9cw --skip-insource   (2.9's measurement)
//   npx tsx scripts/eval-classifier.ts --only injection --cache /tmp/folds [--before 2.7]   (fold models from the cache of analyse-classifier-errors.ts / train-classifier.ts --cache: scoring only)
import path from 'node:path';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { requireDataDir, dedupAndSplit, ownDataDir, readJsonl, type Example } from './lib-classifier/data.js';
import { spamTask, parakweet, coldOwn, enronSpam, spamAssassin, berkeley, shortOwn, coldStyles, isFreshCheck13, isFreshCheck14, sinceAtMost, type ColdStyleRecord } from './lib-classifier/corpora.js';
import { coldItems, trainCold, COLD_DATA_LATEST, COLD_OPTS } from './lib-classifier/cold.js';
import { toLinear, featuresOf } from './lib-classifier/lr.js';
import { auc, prf, recallAtFpr, percentile } from './lib-classifier/metrics.js';
import { SPAM_CHARS } from './lib-classifier/items.js';
import { classifyInbound, screenOutbound, reviewAppeal, QUARANTINE_THRESHOLD, CLASSIFIER_MODEL, type SenderHistory, type Intent } from '../src/classifier/index.js';
import { modelProb } from '../src/classifier/intent.js';
import { injectionBundle, setModelOverride, type InjectionBundle } from '../src/classifier/model.js';
import { SCREEN_OPTIONS } from '../src/classifier/outbound.js';
import { ATTACK_SOURCES, POSITIONS, type Msg } from './lib-classifier/loso.js';
import { evalSets, RECIPES, SHIPPED_RECIPE, type Recipe } from './lib-classifier/recipe-v2.js';
import { figuresFor, losoV1, losoV2, scoreWith, thresholdFor, type LosoRun, type SourceFigures } from './lib-classifier/loso-eval.js';

requireDataDir();
// --only injection|cold|other: one part of the report (the injection part retrains 10 models and takes minutes)
const onlyArg = process.argv.indexOf('--only');
const onlyWhat = onlyArg >= 0 ? process.argv[onlyArg + 1] : null;
const only = (part: 'injection' | 'cold' | 'other') => onlyWhat === null || onlyWhat === part;
const NOW = new Date('2025-03-10T12:00:00Z');
const H: SenderHistory = { messagesFromSender: 0, messagesFromDomain: 0, repliesFromSender: 0, sendsToSender: 0, spfPass: null, dkimPass: null, suppressed: false, complaints: 0 };
const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');
const pct = (x: number) => (100 * x).toFixed(2) + '%';
const out = (s = '') => process.stdout.write(s + '\n');
const line = (name: string, r: ReturnType<typeof prf>, a?: number) =>
  out(`  ${name.padEnd(34)} P ${f3(r.p)}  R ${f3(r.r)}  F1 ${f3(r.f1)}${a !== undefined ? `  ROC-AUC ${f3(a)}` : ''}  (tp ${r.tp} fp ${r.fp} fn ${r.fn} tn ${r.tn})`);

out(`classifier ${CLASSIFIER_MODEL} — held-out evaluation (split: seeded hash of each example's group, 20% eval, deduplicated across sources)`);
out('');

// ---------------- injection ----------------
// Headline: leave-one-source-out (issue #12). For each attack source, a model
// of the same recipe is trained without it and tested on it — as written and
// embedded in held-out real mail at six positions — against the shared
// held-out negatives; the threshold for recall at 1% FPR is set on all
// negatives of that fold. BEFORE = the previous recipe (--before, default 2.3: the recipe of the 2.2 weights plus the cold data of 2.3, retrained with today's text folding),
// AFTER = the shipped one (--after overlays options); --with-v1 adds the v1
// recipe, retrained per fold the same way. Scores come from the real classifyInbound path
// (rules, model, action_request with an unknown sender).
// --insource-only: only the in-source (secondary) figure of the committed weights (no retraining);
// --skip-insource: the leave-one-source-out part only (the in-source figure reads the weights
// committed when the run started)
const insourceOnly = process.argv.includes('--insource-only');
const skipInsource = process.argv.includes('--skip-insource');
if (only('injection') && !insourceOnly) {
  const t0 = Date.now();
  const log = (s: string) => process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(0)}s] ${s}\n`);
  // --dev: a DEVELOPMENT figure (100 attacks per source, 60 trees, no in-source part); never the headline
  const dev = process.argv.includes('--dev');
  const afterArg = process.argv.indexOf('--after');
  // --before NAME: the recipe of the BEFORE columns (default 2.3 — the shipped 2.2 weights cannot be retrained as they were, see docs/classifier.md; '2.0', '2.1', '2.2' still run)
  const beforeArg = process.argv.indexOf('--before');
  const beforeBase = RECIPES[beforeArg >= 0 ? process.argv[beforeArg + 1] : '2.3'];
  if (!beforeBase) throw new Error(`--before: one of ${Object.keys(RECIPES).join(', ')}`);
  // --after-recipe NAME: AFTER is that recipe of RECIPES (e.g. 2.9cw) instead of the shipped one
  const afterRecipeArg = process.argv.indexOf('--after-recipe');
  const afterBase = afterRecipeArg >= 0 ? RECIPES[process.argv[afterRecipeArg + 1]] : SHIPPED_RECIPE;
  if (!afterBase) throw new Error(`--after-recipe: one of ${Object.keys(RECIPES).join(', ')}`);
  const afterRecipe: Recipe = { ...afterBase, ...(afterArg >= 0 ? (JSON.parse(process.argv[afterArg + 1]) as Partial<Recipe>) : {}), ...(dev ? { trees: 60 } : {}) };
  const beforeRecipe: Recipe = { ...beforeBase, ...(dev ? { trees: 60 } : {}) };
  const sets = evalSets(dev ? 100 : 250);
  const negBy = new Map<string, number>();
  for (const m of sets.negatives) negBy.set(m.source, (negBy.get(m.source) ?? 0) + 1);
  if (dev) out('*** DEV FIGURES (--dev: ≤ 100 attacks per source, 60 trees) — for development only, not the headline ***');
  out(`INJECTION — leave-one-source-out (headline). Held-out negatives: ${sets.negatives.length} (${[...negBy].map(([k, v]) => `${k} ${v}`).join(', ')})`);
  out(`  positives per source: ≤ ${dev ? 100 : 250} attacks as written, and each embedded in held-out ham at ${POSITIONS.join(', ')}`);
  out(`  BEFORE = recipe ${beforeRecipe.name} ${JSON.stringify(beforeRecipe)}; AFTER = recipe ${afterRecipe.name} ${JSON.stringify(afterRecipe)}`);
  const v1 = process.argv.includes('--with-v1') ? losoV1(log, sets) : null;
  // --sources a,b: hold out only these sources (a quicker DEV comparison on the worst ones; never the headline)
  const srcArg = process.argv.indexOf('--sources');
  const sources = srcArg >= 0 ? (process.argv[srcArg + 1].split(',') as (typeof ATTACK_SOURCES)[number][]) : ATTACK_SOURCES;
  for (const x of sources) if (!ATTACK_SOURCES.includes(x)) throw new Error(`--sources: one or more of ${ATTACK_SOURCES.join(', ')}`);
  // --cache DIR: fold models read from (or written to) the cache of analyse-classifier-errors.ts / train-classifier.ts (fold-cache.ts)
  const cacheArg = process.argv.indexOf('--cache');
  const cacheDir = cacheArg >= 0 ? process.argv[cacheArg + 1] : undefined;
  const before = process.argv.includes('--no-baseline') ? null : losoV2(log, sets, beforeRecipe, [], sources, cacheDir);
  // ablation: the AFTER fold models scored with a run-time option changed (no retraining): 2.7 without
  // windowCountCorrection (= 2.6's scoring with the 2.7 rule), earlier recipes with the separator option flipped
  const ablation: Partial<InjectionBundle> = afterRecipe.windowCountCorrection ? { windowCountCorrection: 0 } : { ignoreSeparatorRuns: !afterRecipe.ignoreSeparatorRuns };
  const after = losoV2(log, sets, afterRecipe, [ablation], sources, cacheDir);
  const row = (x: SourceFigures | undefined) => (x ? `${f3(x.writtenAuc)}  ${f3(x.embeddedAuc)}  ${f3(x.writtenRecall)}  ${f3(x.embeddedRecall)}` : '   —       —      —      —  ');
  out('');
  out(`  ${'held-out source'.padEnd(16)} ${'n'.padStart(4)} | BEFORE (${beforeRecipe.name})                    | AFTER (${afterRecipe.name})`);
  out(`  ${''.padEnd(16)} ${''.padStart(4)} | AUC wr  AUC emb  R@1% wr  emb    | AUC wr  AUC emb  R@1% wr  emb`);
  for (const x of after.figures) out(`  ${x.source.padEnd(16)} ${String(x.n).padStart(4)} | ${row(before?.figures.find((b) => b.source === x.source))}    | ${row(x)}`);
  const worst = (r: LosoRun | null, k: keyof SourceFigures) => (r ? Math.min(...r.figures.map((x) => x[k] as number)) : NaN);
  const worstRow = (r: LosoRun | null) => `${f3(worst(r, 'writtenAuc'))}  ${f3(worst(r, 'embeddedAuc'))}  ${f3(worst(r, 'writtenRecall'))}  ${f3(worst(r, 'embeddedRecall'))}`;
  out(`  ${'WORST SOURCE'.padEnd(16)} ${''.padStart(4)} | ${worstRow(before)}    | ${worstRow(after)}`);
  if (v1) {
    out('  v1 recipe (document n-gram model, before issue #12), same folds and sets:');
    for (const x of v1.figures) out(`    ${x.source.padEnd(16)} ${row(x)}`);
    out(`    ${'WORST SOURCE'.padEnd(16)} ${worstRow(v1)}`);
  }
  if (after.variants) {
    out(`  ablation: AFTER's fold models scored with ${JSON.stringify(ablation)}:`);
    for (const x of after.variants[0].figures) out(`    ${x.source.padEnd(16)} ${row(x)}`);
    out(`    ${'WORST SOURCE'.padEnd(16)} ${worstRow(after.variants[0])}`);
  }
  out('  embedded recall at 1% FPR by position (AFTER):');
  for (const x of after.figures) out(`    ${x.source.padEnd(16)} ${POSITIONS.map((p) => `${p} ${f3(x.byPosition[p])}`).join('  ')}`);
  if (before) {
    out('  embedded recall at 1% FPR by position (BEFORE):');
    for (const x of before.figures) out(`    ${x.source.padEnd(16)} ${POSITIONS.map((p) => `${p} ${f3(x.byPosition[p])}`).join('  ')}`);
  }
  // 2.4: benign hidden text (pre-headers, boilerplate, template comments hidden in held-out mail; real HTML ham)
  const hid = (r: LosoRun | null, name: string) => {
    if (!r || !r.figures[0]?.hidden) return;
    const n = r.figures[0].hidden.n;
    out(`  benign hidden text (${n} held-out messages; not in the shared negatives), ${name}: ≥ 0.5 ${r.figures.map((x) => x.hidden!.atHalf).join(' / ')}, above the fold's 1%-FPR threshold ${r.figures.map((x) => x.hidden!.overFpr).join(' / ')}, highest ${r.figures.map((x) => f3(x.hidden!.max)).join(' / ')} (per fold, ${r.figures.map((x) => x.source).join(' / ')})`);
  };
  hid(before, `BEFORE (${beforeRecipe.name})`);
  hid(after, `AFTER (${afterRecipe.name})`);
  // which negatives set the 1% FPR point (AFTER, per fold): the top 1% by source
  const topNeg = new Map<string, number>();
  const k1 = Math.ceil(sets.negatives.length * 0.01);
  for (let f = 0; f < after.figures.length; f++) {
    const base = f * sets.negatives.length;
    const idx = sets.negatives.map((_, i) => i).sort((a, b) => after.negScores[base + b] - after.negScores[base + a]).slice(0, k1);
    for (const i of idx) topNeg.set(sets.negatives[i].source, (topNeg.get(sets.negatives[i].source) ?? 0) + 1);
  }
  out(`  negatives in the top 1% (AFTER, all folds): ${[...topNeg].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  out('');

  // Calibration: the quarantine point is chosen on these negatives (train-classifier.ts does the same).
  const at = thresholdFor(after.negScores, 0.005);
  const shipped = injectionBundle().quarantineAt;
  const over = (r: LosoRun, t: number) => {
    const m = new Map<string, number>();
    r.negScores.forEach((s, i) => s >= t && m.set(r.negSources[i], (m.get(r.negSources[i]) ?? 0) + 1));
    return [...m].map(([k, v]) => `${k} ${v}`).join(', ') || 'none';
  };
  const rate = (r: LosoRun, t: number) => r.negScores.filter((s) => s >= t).length / r.negScores.length;
  out(`CALIBRATION (quarantine): raw score at ≤ 0.5% of leave-one-source-out negatives = ${f3(at)} (${at.toPrecision(6)}; shipped weights map ${f3(shipped)} onto ${QUARANTINE_THRESHOLD})`);
  out(`  AFTER: benign at or above the shipped quarantine point: ${pct(rate(after, shipped))} of ${after.negScores.length} fold scores (${over(after, shipped)})`);
  if (before) {
    const bAt = thresholdFor(before.negScores, 0.005);
    out(`  BEFORE (${beforeRecipe.name} folds): raw score at ≤ 0.5% = ${f3(bAt)}; at that point ${pct(rate(before, bAt))} (${over(before, bAt)})`);
  }
  const trig = (r: LosoRun, t: number) => {
    let n = 0, q = 0;
    r.negSources.forEach((s, i) => {
      if (s === 'own-benign/trigger') {
        n++;
        if (r.negScores[i] >= t) q++;
      }
    });
    return `${q} of ${n}`;
  };
  out(`  benign trigger-word sentences (as written and at six positions) quarantined: AFTER ${trig(after, shipped)}${before ? `, BEFORE ${trig(before, thresholdFor(before.negScores, 0.005))}` : ''}`);
  out('');
  if (dev) process.exit(0);
}
if (only('injection') && !skipInsource) {
  // Secondary: the shipped model on the evaluation side of every source (an in-source split: it measures memory of the sources' styles too).
  const ins = evalSets(250, true);
  const sc = (m: Msg) => scoreWith(null, m);
  const negS = ins.negatives.map(sc);
  out(`INJECTION — in-source split (SECONDARY; shipped weights ${CLASSIFIER_MODEL}; evaluation side of every source)`);
  for (const s of ATTACK_SOURCES) {
    const p = ins.positives.get(s)!;
    const fig = figuresFor(s, negS, p.written.map(sc), p.embedded.map((m) => ({ s: sc(m), pos: m.position })));
    out(`  ${s.padEnd(16)} n=${String(fig.n).padStart(4)}  AUC written ${f3(fig.writtenAuc)}  embedded ${f3(fig.embeddedAuc)}  R@1% written ${f3(fig.writtenRecall)}  embedded ${f3(fig.embeddedRecall)}`);
  }
  out(`  benign quarantined (≥ ${QUARANTINE_THRESHOLD}): ${pct(negS.filter((x) => x >= QUARANTINE_THRESHOLD).length / negS.length)} of ${negS.length}`);
  out('');
}

// ---------------- spam ----------------
if (only('other')) {
  const { evalSet } = dedupAndSplit(spamTask());
  const scores = evalSet.map((ex) => modelProb('spam', ((ex.subject ? ex.subject + '\n' : '') + ex.text).toLowerCase(), SPAM_CHARS));
  const labels = evalSet.map((e) => e.label);
  out(`SPAM / BULK (${evalSet.length} held-out: enron-spam + spamassassin)`);
  line('spam model at 0.5', prf(scores.map((s) => s >= 0.5), labels), auc(scores, labels));
  for (const src of ['enron-spam', 'spamassassin']) {
    const idx = evalSet.map((e, i) => (e.source.startsWith(src) ? i : -1)).filter((i) => i >= 0);
    line(`  ${src}`, prf(idx.map((i) => scores[i] >= 0.5), idx.map((i) => labels[i])), auc(idx.map((i) => scores[i]), idx.map((i) => labels[i])));
  }
  out('');
}

// ---------------- request / intent ----------------
if (only('other')) {
  const { evalSet } = dedupAndSplit(parakweet());
  const scores = evalSet.map((ex) => modelProb('request', ex.text.toLowerCase(), 4000));
  const labels = evalSet.map((e) => e.label);
  out(`INTENT`);
  line(`request model (parakweet, n=${evalSet.length})`, prf(scores.map((s) => s >= 0.5), labels), auc(scores, labels));

  interface IRec { id: string; intent: Intent; from: string; subject: string; text: string; headers: Record<string, string> }
  const recs = readJsonl<IRec>(path.join(ownDataDir, 'intent-examples.jsonl'));
  let ok = 0;
  const wrong: string[] = [];
  const per = new Map<string, { tp: number; fp: number; fn: number }>();
  const bump = (k: string, f: 'tp' | 'fp' | 'fn') => {
    const v = per.get(k) ?? { tp: 0, fp: 0, fn: 0 };
    v[f]++;
    per.set(k, v);
  };
  for (const r of recs) {
    const c = classifyInbound({ from: r.from, subject: r.subject, text: r.text, headers: r.headers, classifyIntent: true, history: H }, NOW);
    if (c.intent === r.intent) {
      ok++;
      bump(r.intent, 'tp');
    } else {
      wrong.push(`${r.id} ${r.intent} → ${c.intent}`);
      bump(r.intent, 'fn');
      bump(c.intent, 'fp');
    }
  }
  out(`  hand-labelled intent set (n=${recs.length}, NOT independent: rules were written alongside it): accuracy ${pct(ok / recs.length)}`);
  let macro = 0;
  for (const [, v] of per) macro += v.tp ? (2 * v.tp) / (2 * v.tp + v.fp + v.fn) : 0;
  out(`  macro-F1 over ${per.size} intents ${f3(macro / per.size)}; errors: ${wrong.join('; ') || 'none'}`);

  // Berkeley Enron genres: real mail, coarse labels; held-out side only
  const { evalSet: bkEval } = dedupAndSplit(berkeley());
  const dist = (filter: (cats: string[]) => boolean) => {
    const m = new Map<string, number>();
    let n = 0;
    for (const ex of bkEval) {
      const cats = (ex.meta?.cats as string[]) ?? [];
      if (!filter(cats)) continue;
      n++;
      const c = classifyInbound({ from: String(ex.meta?.from ?? ''), subject: ex.subject ?? '', text: ex.text, classifyIntent: true, history: H }, NOW);
      m.set(c.intent, (m.get(c.intent) ?? 0) + 1);
    }
    return `n=${n}: ` + [...m].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([k, v]) => `${k} ${pct(v / n)}`).join(', ');
  };
  out(`  enron-berkeley "logistic arrangements" (1.4) → ${dist((c) => c.includes('1.4'))}`);
  out(`  enron-berkeley "newsletters" (2.10)         → ${dist((c) => c.includes('2.10'))}`);
  out('');
}

// ---------------- short mail ----------------
// Held-out templates of scripts/classifier-data/short-emails.jsonl: codes,
// notices, one-line replies and greetings (benign) and short attacks. The
// intent/code rules were written alongside this set: the intent and code
// figures are NOT independent; the injection figures are (held-out templates).
if (only('other')) {
  const recs = shortOwn();
  const { evalSet } = dedupAndSplit(recs.map((r) => r.ex));
  const benign = evalSet.filter((e) => e.label === 0);
  const attacks = evalSet.filter((e) => e.label === 1);
  const cls = (ex: Example) => classifyInbound({ from: 'no-reply@example.com', subject: ex.subject ?? '', text: ex.text, classifyIntent: true, history: H }, NOW);
  let over5 = 0, over3 = 0, quar = 0, cold = 0, otp = 0, otpOk = 0, codeOk = 0, maxS = 0;
  const worst: string[] = [];
  const codeRe = /(?<![\w-])(?:G-)?(\d{3}[- ]\d{3}|\d{4,8}|[A-Z0-9]{6})(?![\w-])/;
  for (const ex of benign) {
    const c = cls(ex);
    const s = c.injection_score;
    maxS = Math.max(maxS, s);
    if (s >= 0.5) {
      over5++;
      if (worst.length < 5) worst.push(`"${ex.subject}" / ${JSON.stringify(ex.text.slice(0, 60))} ${s}`);
    }
    if (s >= 0.3) over3++;
    if (s >= QUARANTINE_THRESHOLD) quar++;
    if (c.intent === 'cold_pitch') cold++;
    if (ex.meta?.kind === 'otp') {
      otp++;
      if (c.intent === 'verification_code') otpOk++;
      const want = codeRe.exec(ex.text)?.[0];
      if (want && c.entities.codes?.includes(want)) codeOk++;
    }
  }
  const as = attacks.map((ex) => cls(ex).injection_score);
  out(`SHORT MAIL (own set, held-out templates: ${benign.length} benign, ${attacks.length} attacks)`);
  out(`  benign: injection ≥ 0.5 ${over5} (${pct(over5 / Math.max(1, benign.length))}), ≥ 0.3 ${over3}, quarantined ${quar}, max ${f3(maxS)}${worst.length ? ' — ' + worst.join('; ') : ''}`);
  out(`  benign: intent cold_pitch ${cold}; verification mail → verification_code ${otpOk}/${otp}, code extracted ${codeOk}/${otp}`);
  out(`  attacks: quarantined ${as.filter((s) => s >= QUARANTINE_THRESHOLD).length}/${as.length}, ≥ 0.5 ${as.filter((s) => s >= 0.5).length}/${as.length}`);
  let refused = 0;
  for (const ex of benign) if (screenOutbound({ subject: ex.subject ?? '', text: ex.text, to: ['a@example.com'], isReply: /^(re|aw|sv|r|odp|回复):/i.test(ex.subject ?? '') }).blocked) refused++;
  out(`  cold screen refusals of short benign mail sent outbound: ${refused}/${benign.length}`);
  out('');
}

// ---------------- cold screen ----------------
if (only('cold')) {
  const own = coldOwn();
  const ham: Example[] = [...enronSpam().filter((x) => x.label === 0), ...spamAssassin().filter((x) => x.label === 0)].filter((_, i) => i % 8 === 0).map((x) => ({ ...x, source: 'real-ham' }));
  const { evalSet } = dedupAndSplit([...own.map((o) => o.ex), ...ham]);
  const ownEval = evalSet.filter((e) => e.source !== 'real-ham');
  const scores: number[] = [];
  const labels: number[] = [];
  let txBlocked = 0, tx = 0, coldBlocked = 0, cold = 0, fixed = 0;
  const overturn = { overturned: 0, upheld: 0, not_appealable: 0, not_blocked: 0 };
  const fr: string[] = [];
  for (const ex of ownEval) {
    const input = { subject: ex.subject ?? '', text: ex.text, to: Array.from({ length: Number(ex.meta?.to ?? 1) }, (_, i) => `r${i}@example.com`), isReply: ex.meta?.isReply === true };
    const r = screenOutbound(input);
    scores.push(r.score);
    labels.push(ex.label);
    if (ex.label === 0) {
      tx++;
      if (r.blocked) {
        txBlocked++;
        fr.push(`${ex.source}: "${ex.subject}" (${r.score})`);
        overturn[reviewAppeal(input).outcome]++;
      }
    } else {
      cold++;
      if (r.blocked) coldBlocked++;
      if (r.blocked && !r.appealable) fixed++;
    }
  }
  out(`COLD-EMAIL SCREEN — held-out templates (secondary; own template set: ${tx} transactional, ${cold} cold/bulk)`);
  line('blocked vs cold label', prf(scores.map((s) => s >= 0.8), labels), auc(scores, labels));
  out(`  false-refusal rate on transactional: ${pct(txBlocked / Math.max(1, tx))} (${txBlocked}/${tx}; goal ≤ 1%)${fr.length ? ' — ' + fr.slice(0, 5).join('; ') : ''}`);
  out(`  catch rate on cold pitches / bulk:   ${pct(coldBlocked / Math.max(1, cold))} (${coldBlocked}/${cold}; ${fixed} of them fixed-policy, not appealable)`);
  if (txBlocked) out(`  appeals of false refusals: ${JSON.stringify(overturn)}`);
  const hamEval = evalSet.filter((e) => e.source === 'real-ham');
  for (const rules26 of [true, false]) {
    SCREEN_OPTIONS.rules26 = rules26;
    let hb = 0;
    for (const ex of hamEval) if (screenOutbound({ subject: ex.subject ?? '', text: ex.text, to: ['a@example.com'], isReply: /^\s*(re|aw|fwd?):/i.test(ex.subject ?? '') }).blocked) hb++;
    out(`  refusal rate on real ham email (enron + spamassassin, n=${hamEval.length}, as if sent outbound; ${rules26 ? 'screen rules of 2.6' : 'screen rules of 2.4'}): ${pct(hb / Math.max(1, hamEval.length))} (${hb})`);
  }
  SCREEN_OPTIONS.rules26 = true;
  out('');
}

// ---------------- cold screen: leave-one-style-out ----------------
// cold-styles.jsonl: hand-written pitches and transactional mail by style.
// For each style, the cold model is retrained without it (the same recipe as
// train-classifier.ts) and the style's mail goes through the real
// screenOutbound with that model in place.
// BEFORE = the screen of 2.13 (the 2.13 style set, `rules214` off), AFTER = 2.14 (its style set and
// rules); --cold-data adds the middle run (2.14 data, 2.13 rules), --cold-rules the other (2.13 data, 2.14 rules). 2.14's fresh check (never trained)
// is scored and printed only with --fresh; 2.13's fresh check trains from 2.14 on (held out style by
// style in AFTER, never trained in BEFORE). --cold-cache DIR keeps each fold's cold model on disk,
// keyed by a hash of its training items and options (training is deterministic).
if (only('cold')) {
  const argOf = (name: string) => (process.argv.indexOf(name) >= 0 ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const fresh = process.argv.includes('--fresh');
  const cacheDir = argOf('--cold-cache');
  const recs = coldStyles().filter((r) => fresh || !isFreshCheck14(r.rec));
  // --cold-part i/n: every n-th style from the i-th (filling the cache from several processes)
  const part = argOf('--cold-part')?.split('/').map(Number);
  const styles = [...new Set(recs.map((r) => r.rec.style))].filter((_, i) => !part || i % part[1] === part[0]);
  const featMemo = new Map<string, Uint32Array>();
  const foldCold = (st: string, upTo: string) => {
    const { items } = coldItems(st, upTo);
    const key = createHash('sha256').update(JSON.stringify([COLD_OPTS, items.map((i) => [i.text, i.label, i.weight])])).digest('hex').slice(0, 16);
    const file = cacheDir ? path.join(cacheDir, `cold-${key}.json`) : null;
    if (file && existsSync(file)) {
      const j = JSON.parse(readFileSync(file, 'utf8'));
      return { ...j, w: new Int8Array(Buffer.from(j.w, 'base64')) };
    }
    // each text featurised once for every fold (the same hashes trainLR computes; only the speed changes)
    for (const it of items) {
      let f = featMemo.get(it.text);
      if (!f) featMemo.set(it.text, (f = featuresOf(it.text).feats.slice(0, featuresOf(it.text).n)));
      it.feats = f;
    }
    const m = toLinear(trainCold(items));
    if (file) {
      mkdirSync(cacheDir!, { recursive: true });
      writeFileSync(file, JSON.stringify({ ...m, w: Buffer.from(m.w.buffer, m.w.byteOffset, m.w.byteLength).toString('base64') }));
    }
    return m;
  };
  const runs = [
    { name: 'BEFORE (2.13: 2.13 data and rules)', upTo: '2.13', rules214: false },
    ...(process.argv.includes('--cold-data') ? [{ name: `DATA (${COLD_DATA_LATEST} data, 2.13 rules)`, upTo: COLD_DATA_LATEST, rules214: false }] : []),
    ...(process.argv.includes('--cold-rules') ? [{ name: `RULES (2.13 data, ${COLD_DATA_LATEST} rules)`, upTo: '2.13', rules214: true }] : []),
    { name: `AFTER (${COLD_DATA_LATEST} data and rules)`, upTo: COLD_DATA_LATEST, rules214: true },
  ]
    // --cold-run BEFORE|AFTER: one run only (filling the cache of --cold-cache from two processes)
    .filter((r) => !argOf('--cold-run') || r.name.startsWith(argOf('--cold-run')!))
    .map(({ name, upTo, rules214 }) => {
    const hits = new Map<string, number>();
    const missed: string[] = [];
    for (const st of styles) {
      setModelOverride('cold', foldCold(st, upTo));
      SCREEN_OPTIONS.rules214 = rules214;
      try {
        let hit = 0;
        for (const { rec } of recs.filter((r) => r.rec.style === st)) {
          const r = screenOutbound({ subject: rec.subject, text: rec.text, to: ['r0@example.com'], isReply: rec.isReply });
          if (r.blocked) hit++;
          if (r.blocked !== (rec.label === 1)) missed.push(`${rec.label ? 'missed' : 'REFUSED'} ${st}: "${rec.subject}" (${r.score}; ${r.signals.join(',')})`);
        }
        hits.set(st, hit);
      } finally {
        setModelOverride('cold', null);
        SCREEN_OPTIONS.rules214 = true;
      }
    }
    return { name, hits, missed };
  });
  // a set of styles: label, and which styles (by their record)
  const isForeign = (r: ColdStyleRecord) => r.style.startsWith('foreign');
  const old = (r: ColdStyleRecord) => sinceAtMost(r.since, '2.12');
  const of213 = (r: ColdStyleRecord) => sinceAtMost(r.since, '2.13') && !isFreshCheck13(r);
  const tally = (hits: Map<string, number>, label: 0 | 1, which: (r: ColdStyleRecord) => boolean) => {
    let h = 0, n = 0;
    for (const st of styles) {
      const mine = recs.filter((r) => r.rec.style === st);
      if (mine[0].rec.label !== label || !which(mine[0].rec)) continue;
      h += hits.get(st)!;
      n += mine.length;
    }
    return `${pct(h / Math.max(1, n))} (${h}/${n})`;
  };
  out(`COLD-EMAIL SCREEN — leave-one-style-out (headline; ${styles.length} styles of hand-written mail, each scored by a model trained without it)`);
  for (const r of runs) {
    const trains = (x: ColdStyleRecord) => !isFreshCheck14(x);
    out(`  ${r.name}: pitches caught ${tally(r.hits, 1, trains)} (goal ≥ 95%)   transactional refused ${tally(r.hits, 0, trains)} (goal ≤ 1%)   [all styles but 2.14's fresh check; 2.13's check trains only in 2.14]`);
    out(`      the styles of 2.12: pitches in English ${tally(r.hits, 1, (x) => old(x) && !isForeign(x))}, in other languages ${tally(r.hits, 1, (x) => old(x) && isForeign(x))}; transactional refused ${tally(r.hits, 0, old)}`);
    out(`      the training styles of 2.13 (2.12's and those added in 2.13): pitches ${tally(r.hits, 1, of213)} [other languages ${tally(r.hits, 1, (x) => of213(x) && isForeign(x))}], transactional refused ${tally(r.hits, 0, of213)}`);
    out(`      2.13's fresh check: pitches ${tally(r.hits, 1, isFreshCheck13)} [English pretexts ${tally(r.hits, 1, (x) => isFreshCheck13(x) && !isForeign(x))}, other languages ${tally(r.hits, 1, (x) => isFreshCheck13(x) && isForeign(x))}]; transactional refused ${tally(r.hits, 0, isFreshCheck13)} [English look-alikes ${tally(r.hits, 0, (x) => isFreshCheck13(x) && !isForeign(x))}, other languages ${tally(r.hits, 0, (x) => isFreshCheck13(x) && isForeign(x))}]`);
    out(`      the styles added in 2.14: pitches ${tally(r.hits, 1, (x) => !of213(x) && !isFreshCheck13(x) && trains(x))}, transactional refused ${tally(r.hits, 0, (x) => !of213(x) && !isFreshCheck13(x) && trains(x))}`);
    if (fresh) out(`      FRESH CHECK of 2.14 (never trained): pitches ${tally(r.hits, 1, isFreshCheck14)} [English ${tally(r.hits, 1, (x) => isFreshCheck14(x) && !isForeign(x))}, other languages ${tally(r.hits, 1, (x) => isFreshCheck14(x) && isForeign(x))}]; transactional refused ${tally(r.hits, 0, isFreshCheck14)} [English look-alikes ${tally(r.hits, 0, (x) => isFreshCheck14(x) && !isForeign(x))}, other languages ${tally(r.hits, 0, (x) => isFreshCheck14(x) && isForeign(x))}]`);
  }
  for (const st of styles) {
    const mine = recs.filter((r) => r.rec.style === st);
    const label = mine[0].rec.label;
    out(`    ${(label ? 'pitch ' : 'trans ') + st.padEnd(22)}${mine[0].rec.since ? ` (${mine[0].rec.since}${mine[0].rec.check ? ' check' : ''})`.padEnd(12) : ' '.repeat(12)} n=${String(mine.length).padStart(3)}  ${label ? 'caught' : 'refused'} ${runs.map((r) => `${r.name.split(' ')[0]} ${r.hits.get(st)}`).join('  ')}`);
  }
  for (const r of runs) if (r.missed.length) out(`  errors ${r.name} (${r.missed.length}):\n    ${r.missed.join('\n    ')}`);
  out('');
}

// ---------------- latency ----------------
if (only('other')) {
  const msgs = spamAssassin()
    .map((e) => ({ e, size: e.text.length + String(e.meta?.html ?? '').length }))
    .filter((x) => x.size >= 2048 && x.size <= 20480)
    .slice(0, 2000)
    .map(({ e }) => ({ from: String(e.meta?.from ?? ''), subject: e.subject ?? '', text: e.text, html: (e.meta?.html as string) || null, headers: (e.meta?.headers as Record<string, string>) ?? {}, classifyIntent: true, history: H }));
  for (let i = 0; i < 200; i++) classifyInbound(msgs[i % msgs.length], NOW); // warm up
  // CPU time per message (process.cpuUsage), so a busy shared machine that
  // deschedules us does not count; wall-clock figures are printed beside it.
  const measure = (f: (m: (typeof msgs)[number]) => unknown) => {
    const cpu: number[] = [];
    const wall: number[] = [];
    for (const m of msgs) {
      const c0 = process.cpuUsage();
      const w0 = process.hrtime.bigint();
      f(m);
      const w = Number(process.hrtime.bigint() - w0) / 1e6;
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      wall.push(w);
    }
    cpu.sort((a, b) => a - b);
    wall.sort((a, b) => a - b);
    return `CPU p50 ${percentile(cpu, 0.5).toFixed(3)} ms  p99 ${percentile(cpu, 0.99).toFixed(3)} ms  (wall p50 ${percentile(wall, 0.5).toFixed(3)} ms  p99 ${percentile(wall, 0.99).toFixed(3)} ms)`;
  };
  out(`LATENCY (${msgs.length} real 2–20 KB SpamAssassin messages incl. HTML, one core, after warm-up)`);
  out(`  classifyInbound (intent+entities on): ${measure((m) => classifyInbound(m, NOW))}`);
  out(`  classifyInbound (scan only):          ${measure((m) => classifyInbound({ ...m, classifyIntent: false }, NOW))}`);
  out(`  screenOutbound:                       ${measure((m) => screenOutbound({ subject: m.subject, text: m.text, html: m.html, to: ['a@example.com'], isReply: false }))}`);
}
