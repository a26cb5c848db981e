// Same mail, two builds: does a classifier change move the classification of ordinary mail?
//   npm run build && npx tsx bench/tools/classifier-compare.ts --base DIR [--every 7] [--limit 3000]
// Reads the shared corpora (../shared/data, or MAILAGENT_CORPUS_DIR, resolved from the repository
// root): SpamAssassin's and Enron's raw messages (every Nth file), parses each once with this
// tree's parser and classifies it with this tree's `dist/` and with DIR's `dist/` (e.g. the
// session's baseline). Prints how many classifications are identical (every field), by size of
// the text + HTML, and lists the ones that differ. Session 13 (fix13c): the scan-bound change must
// leave every message under the old bounds (64 KB of text, 128 KB of HTML) as it was. Session 14:
// also by whether the message is past the old bounds of hidden text (8 KB) or of the HTML's visible
// sentences that a different plain part does not say (16 KB): `wide` of this tree's injectionInputOf.
import { existsSync, readFileSync } from 'node:fs';
import { tarEntries } from '../../test/helpers/tar.js';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadavg } from 'node:os';

const argv = process.argv.slice(2);
const arg = (n: string) => (argv.indexOf(n) >= 0 ? argv[argv.indexOf(n) + 1] : undefined);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATA = resolve(ROOT, process.env.MAILAGENT_CORPUS_DIR ?? join('..', 'shared', 'data'));
const base = arg('--base');
if (!base) throw new Error('--base DIR: the other build (its dist/ is used)');
const EVERY = Number(arg('--every') ?? 7);
const LIMIT = Number(arg('--limit') ?? 3000);

type Clf = typeof import('../../src/classifier/index.js');
const mine = (await import(pathToFileURL(join(ROOT, 'dist/classifier/index.js')).href)) as Clf;
const theirs = (await import(pathToFileURL(join(resolve(base), 'dist/classifier/index.js')).href)) as Clf;
const parse = (await import(pathToFileURL(join(ROOT, 'dist/mail/parse.js')).href)) as typeof import('../../src/mail/parse.js');
const inj = (await import(pathToFileURL(join(ROOT, 'dist/classifier/injection.js')).href)) as typeof import('../../src/classifier/injection.js');
const H = { messagesFromSender: 0, messagesFromDomain: 0, repliesFromSender: 0, sendsToSender: 0, spfPass: null, dkimPass: null, suppressed: false, complaints: 0 };
const NOW = new Date('2025-03-10T12:00:00Z');

console.log(`# classifier-compare: this ${mine.CLASSIFIER_MODEL} vs base ${theirs.CLASSIFIER_MODEL}; load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
const buckets = new Map<string, { same: number; differ: number }>();
const bucket = (n: number) => (n < 16 * 1024 ? '< 16 KB' : n < 64 * 1024 ? '16-64 KB' : n < 128 * 1024 ? '64-128 KB' : '>= 128 KB');
const diffs: string[] = [];
let seen = 0;
let tMine = 0;
let tTheirs = 0;
for (const corpus of ['spamassassin', 'enron-spam']) {
  const file = join(DATA, corpus, 'messages.tar.gz');
  if (!existsSync(file)) {
    console.log(`# ${file}: missing, skipped`);
    continue;
  }
  let i = 0;
  for (const e of tarEntries(readFileSync(file))) {
    if (i++ % EVERY !== 0 || seen >= LIMIT) continue;
    seen++;
    const p = await parse.parseAndExtract(e.data);
    const f = parse.classifierFields(p.parsed, 'sender@corpus.test');
    const input = { ...f, attachments: parse.attachmentTexts(p.parsed.attachments), attachmentNames: parse.attachmentNames(p.parsed.attachments), classifyIntent: true, history: H };
    // A B / B A alternately: the first call on a message pays for flattening its strings
    const time = (c: Clf) => {
      const t = performance.now();
      const r = c.classifyInbound(input, NOW);
      return { r, ms: performance.now() - t };
    };
    const [x, y] = seen % 2 ? [time(mine), time(theirs)] : (() => { const q = time(theirs); return [time(mine), q]; })();
    const a = x.r;
    const b = y.r;
    tMine += x.ms;
    tTheirs += y.ms;
    const size = f.text.length + (f.html?.length ?? 0);
    const wide = inj.injectionInputOf(f.subject, f.text.slice(0, 1024 * 1024), (f.html ?? '').slice(0, 1024 * 1024), true, 1024 * 1024, true).wide === true;
    const k = bucket(size) + (wide ? ', hidden > 8 KB or unseen > 16 KB' : '');
    const row = buckets.get(k) ?? { same: 0, differ: 0 };
    const same = JSON.stringify({ ...a, classifier_model: '' }) === JSON.stringify({ ...b, classifier_model: '' });
    if (same) row.same++;
    else {
      row.differ++;
      diffs.push(`${corpus}/${e.name} (${size} chars): score ${b.injection_score} -> ${a.injection_score}, intent ${b.intent} -> ${a.intent}`);
    }
    buckets.set(k, row);
  }
}
console.log('size\tidentical\tdiffer');
for (const k of [...buckets.keys()].sort()) {
  const r = buckets.get(k)!;
  console.log(`${k}\t${r.same}\t${r.differ}`);
}
console.log(`# ${seen} messages; classify time this ${tMine.toFixed(0)} ms, base ${tTheirs.toFixed(0)} ms (same run, alternated A B / B A); load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
for (const d of diffs.slice(0, 40)) console.log('#   ' + d);
