// Does a change of what classifyInbound reads reach the leave-one-source-out evaluation? (session 14)
//   npx tsx bench/tools/classifier-eval-inputs.ts
// Builds the evaluation's message sets (recipe-v2 evalSets: the shared negatives, every source's
// attacks as written and embedded, the benign hidden text) and compares, for each message, the
// injection scan's input as classifyInbound builds it (`injectionInputOf(…, whole = true)`) with the
// old reading (hidden text to 8 KB, the HTML's unseen sentences to 16 KB). When none differs (and
// none is `wide` or `cut`), every fold's scores are the same before and after: the evaluation cannot
// see the change, and its figures stand without retraining the fold models.
import { loadavg } from 'node:os';
import { evalSets } from '../../scripts/lib-classifier/recipe-v2.js';
import { injectionInputOf } from '../../src/classifier/injection.js';
import { bounded, collapseWhitespace, MAX_INPUT_CHARS, MAX_SCAN_CHARS } from '../../src/classifier/text.js';
import type { Msg } from '../../scripts/lib-classifier/loso.js';

console.log(`# classifier-eval-inputs; load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
const sets = evalSets();
const all: { m: Msg; kind: string }[] = sets.negatives.map((m) => ({ m, kind: 'negative' }));
for (const [s, p] of sets.positives) {
  for (const m of p.written) all.push({ m, kind: `${s} written` });
  for (const m of p.embedded) all.push({ m, kind: `${s} embedded` });
}
for (const m of sets.hiddenBenign) all.push({ m, kind: 'benign hidden text' });
let differ = 0;
let longestHidden = 0;
const byKind = new Map<string, number>();
for (const { m, kind } of all) {
  // classifyInbound's reading of the bodies (index.ts classifyUnsafe)
  const subject = bounded(m.subject ?? '', 2000);
  const text = bounded(m.text.length > MAX_INPUT_CHARS ? collapseWhitespace(m.text) : m.text, MAX_SCAN_CHARS);
  const html = bounded(m.html || '', MAX_SCAN_CHARS);
  const now = injectionInputOf(subject, text, html, true, MAX_SCAN_CHARS, true);
  const old = injectionInputOf(subject, text, html, true, MAX_SCAN_CHARS);
  longestHidden = Math.max(longestHidden, now.input.hidden.length);
  if (now.wide || now.cut || JSON.stringify(now.input) !== JSON.stringify(old.input)) {
    differ++;
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }
}
console.log(`${all.length} messages; scan input differs from the old reading in ${differ}; longest hidden text ${longestHidden} characters`);
for (const [k, v] of byKind) console.log(`  ${k}: ${v}`);
