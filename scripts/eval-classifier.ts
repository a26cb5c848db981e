// Evaluates the committed classifier (src/classifier, the quantised weights
// as shipped) on the held-out side of the split in lib-classifier/data.ts.
//   npx tsx scripts/eval-classifier.ts
import path from 'node:path';
import { requireDataDir, dedupAndSplit, ownDataDir, readJsonl, type Example } from './lib-classifier/data.js';
import { injectionTask, spamTask, parakweet, coldOwn, enronSpam, spamAssassin, berkeley, shortOwn } from './lib-classifier/corpora.js';
import { auc, prf, recallAtFpr, percentile } from './lib-classifier/metrics.js';
import { SPAM_CHARS } from './lib-classifier/items.js';
import { classifyInbound, screenOutbound, reviewAppeal, QUARANTINE_THRESHOLD, CLASSIFIER_MODEL, type SenderHistory, type Intent } from '../src/classifier/index.js';
import { modelProb } from '../src/classifier/intent.js';

requireDataDir();
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
{
  const { evalSet } = dedupAndSplit(injectionTask());
  const scores: number[] = [];
  const labels: number[] = [];
  const bySource = new Map<string, { n: number; hit: number; fp: number }>();
  const emailNeg: number[] = [];
  const emailNegLong: number[] = []; // the benign email set before the short set existed (comparable figure)
  const pos: number[] = [];
  for (const ex of evalSet) {
    const html = typeof ex.meta?.html === 'string' && ex.meta.html ? ex.meta.html : null;
    const c = classifyInbound({ from: 'sender@example.com', subject: ex.subject ?? '', text: ex.text, html, classifyIntent: false, history: H }, NOW);
    scores.push(c.injection_score);
    labels.push(ex.label);
    if (ex.label === 1) pos.push(c.injection_score);
    else if (ex.meta?.email) {
      emailNeg.push(c.injection_score);
      if (!ex.source.startsWith('own/short/')) emailNegLong.push(c.injection_score);
    }
    const s = bySource.get(ex.source) ?? { n: 0, hit: 0, fp: 0 };
    s.n++;
    if (c.injection_score >= QUARANTINE_THRESHOLD) {
      if (ex.label === 1) s.hit++;
      else s.fp++;
    }
    bySource.set(ex.source, s);
  }
  out(`INJECTION (${evalSet.length} held-out examples: ${pos.length} attacks, ${labels.length - pos.length} benign of which ${emailNeg.length} real email)`);
  const a = auc(scores, labels);
  line(`at quarantine ${QUARANTINE_THRESHOLD}`, prf(scores.map((s) => s >= QUARANTINE_THRESHOLD), labels), a);
  line('at 0.5', prf(scores.map((s) => s >= 0.5), labels));
  const r1 = recallAtFpr(pos, emailNeg, 0.01);
  out(`  recall at 1% FPR on benign email: ${pct(r1.recall)} (threshold ${f3(r1.threshold)}; ${emailNeg.length} benign emails incl. the short set)`);
  const r1l = recallAtFpr(pos, emailNegLong, 0.01);
  out(`  recall at 1% FPR on benign email without the short set: ${pct(r1l.recall)} (threshold ${f3(r1l.threshold)}; ${emailNegLong.length} benign emails)`);
  out(`  benign email quarantined (FPR at ${QUARANTINE_THRESHOLD}): ${pct(emailNeg.filter((s) => s >= QUARANTINE_THRESHOLD).length / emailNeg.length)} of ${emailNeg.length}`);
  out('  per source (quarantined at 0.95):');
  for (const [src, s] of [...bySource].sort()) {
    const isPos = evalSet.find((e) => e.source === src)?.label === 1;
    out(`    ${src.padEnd(32)} n=${String(s.n).padStart(5)}  ${isPos ? `recall ${pct(s.hit / s.n)}` : `false positives ${pct(s.fp / s.n)}`}`);
  }
  out('');
}

// ---------------- spam ----------------
{
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
{
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
{
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
{
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
  out(`COLD-EMAIL SCREEN (own hand-written set, held-out templates: ${tx} transactional, ${cold} cold/bulk)`);
  line('blocked vs cold label', prf(scores.map((s) => s >= 0.8), labels), auc(scores, labels));
  out(`  false-refusal rate on transactional: ${pct(txBlocked / Math.max(1, tx))} (${txBlocked}/${tx}; goal ≤ 1%)${fr.length ? ' — ' + fr.slice(0, 5).join('; ') : ''}`);
  out(`  catch rate on cold pitches / bulk:   ${pct(coldBlocked / Math.max(1, cold))} (${coldBlocked}/${cold}; ${fixed} of them fixed-policy, not appealable)`);
  if (txBlocked) out(`  appeals of false refusals: ${JSON.stringify(overturn)}`);
  const hamEval = evalSet.filter((e) => e.source === 'real-ham');
  let hb = 0;
  for (const ex of hamEval) if (screenOutbound({ subject: ex.subject ?? '', text: ex.text, to: ['a@example.com'], isReply: /^\s*(re|aw|fwd?):/i.test(ex.subject ?? '') }).blocked) hb++;
  out(`  refusal rate on real ham email (enron + spamassassin, n=${hamEval.length}, as if sent outbound): ${pct(hb / Math.max(1, hamEval.length))}`);
  out('');
}

// ---------------- latency ----------------
{
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
