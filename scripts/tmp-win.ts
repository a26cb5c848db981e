import { readFileSync } from 'node:fs';
import { evalSets, bundleOf, SHIPPED_RECIPE } from './lib-classifier/recipe-v2.js';
import { injectionInputOf } from '../src/classifier/injection.js';
import { buildScanDoc, pairWindows } from '../src/classifier/signals.js';
import { bounded } from '../src/classifier/text.js';
const sets = evalSets(250);
const nw = (m: any) => { const { input } = injectionInputOf(bounded(m.subject, 2000), bounded(m.text), bounded(m.html, 128 * 1024)); const { segs } = buildScanDoc(input.subject.toLowerCase(), input.visible.toLowerCase(), input.hidden.toLowerCase(), 16384, 8192); return pairWindows(segs).length; };
for (const f of ['deepset', 'bipia']) {
  const d = JSON.parse(readFileSync(`/tmp/clf7/an-${f}.json`, 'utf8'))[f];
  const neg: number[] = d.negScores;
  const buckets = [1, 3, 8, 20, 40, 80, 1000];
  const sorted = [...neg].sort((a, b) => b - a);
  const t38 = sorted[38], t100 = sorted[100];
  const rows = sets.negatives.map((m, i) => ({ w: nw(m), s: neg[i] }));
  for (let b = 0; b < buckets.length - 1; b++) {
    const r = rows.filter((x) => x.w >= buckets[b] && x.w < buckets[b + 1]);
    console.log(f, `windows ${buckets[b]}-${buckets[b + 1] - 1}: n ${r.length}, top38 ${r.filter((x) => x.s > t38).length}, top100 ${r.filter((x) => x.s > t100).length}`);
  }
  // positives of the held-out source: window buckets only (counts)
  const p = sets.positives.get(f as any)!;
  const pr = [...p.written, ...p.embedded].map((m, i) => ({ w: nw(m), s: d.posScores[i][1] }));
  for (let b = 0; b < buckets.length - 1; b++) {
    const r = pr.filter((x) => x.w >= buckets[b] && x.w < buckets[b + 1]);
    console.log('   positives', `windows ${buckets[b]}-${buckets[b + 1] - 1}: n ${r.length}, over t38 ${r.filter((x) => x.s > t38).length}`);
  }
}
