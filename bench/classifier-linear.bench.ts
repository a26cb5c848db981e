// Linear-time fuzzer for the classifier and the HTML-to-text path (session 13, fix13c).
// Prints figures; asserts nothing (timing assertions do not belong in tests).
//
//   npm run build && npx tsx bench/classifier-linear.bench.ts [--base DIR] [--root DIR] [--sizes 1,4,16,64] [--only comment,style] [--prefix kw:] [--units x,sp] [--timeout 4000]
//
// For each HTML or text construct (a comment, an unterminated comment, a paragraph, an attribute,
// a style value, CDATA, a conditional comment, hidden text, a quoted line …) and each "unit" (one
// character, or a short pair such as "a "), a run of that unit of N KB is put inside the construct,
// and classifyInbound (intent on: entities, intent and the injection scan) times one call on it; with
// `--parse`, parseAndExtract (mailparser's HTML-to-text included) reads it as an HTML-only mail too.
// Time should grow about linearly: the table prints the time per size and the ratio of the largest
// size's time to the smallest's, scaled by their size ratio (1 = linear; ≫ 1 = superlinear). A run
// over `--timeout` ms is cut (its worker terminated) and shown as `>T`; the larger sizes of that
// case are skipped.
//
// Each build runs in its own worker threads (a superlinear case cannot hold the bench): this tree's
// `dist/` and, with `--base DIR`, another build's `dist/` (e.g. the session's baseline), alternated
// case by case in the same run. The load average is printed at the start and the end.
import { TimedWorker } from './tools/timed-worker.js';
import { finish, growthOf, superlinear } from './tools/scaling.js';
import { loadavg } from 'node:os';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const builds: { name: string; root: string }[] = [{ name: 'this', root: arg('--root') ? path.resolve(arg('--root')!) : here }];
if (arg('--base')) builds.push({ name: 'base', root: path.resolve(arg('--base')!) });
const SIZES = (arg('--sizes') ?? '1,4,16,64').split(',').map((s) => Math.round(Number(s) * 1024));
const TIMEOUT = Number(arg('--timeout') ?? 4000);
const PARSE = argv.includes('--parse');

/** Constructs: RUN is replaced by the run; `html` constructs go in as body_html, the rest as body_text. */
const CONSTRUCTS: { name: string; html: boolean; t: string }[] = [
  { name: 'comment', html: true, t: '<p>Hi</p><!-- RUN --><p>hello</p>' },
  { name: 'comment-tight', html: true, t: '<p>Hi</p><!--RUN--><p>hello</p>' },
  { name: 'comment-open', html: true, t: '<p>Hi</p><!--RUN' },
  { name: 'mso', html: true, t: '<!--[if mso]>RUN<![endif]--><p>hello</p>' },
  { name: 'cdata', html: true, t: '<p>Hi</p><![CDATA[RUN]]><p>hello</p>' },
  { name: 'p', html: true, t: '<p>Hi</p><p>RUN</p>' },
  { name: 'after', html: true, t: '<p>Hi</p>RUN' },
  { name: 'attr', html: true, t: '<p title="RUN">x</p>' },
  { name: 'attr-open', html: true, t: '<p title="RUN' },
  { name: 'tag', html: true, t: '<p>Hi</p><RUN>x' },
  { name: 'style', html: true, t: '<div style="RUN">x</div>' },
  { name: 'style-bg', html: true, t: '<div style="background:#fff RUN">x</div>' },
  { name: 'style-color', html: true, t: '<div style="color:RUN">x</div>' },
  { name: 'style-width', html: true, t: '<div style="width:0;overflow:RUN">x</div>' },
  { name: 'bgcolor', html: true, t: '<td bgcolor="RUN">x</td>' },
  { name: 'href', html: true, t: '<a href="RUN">x</a>' },
  { name: 'img-alt', html: true, t: '<img alt="RUN">' },
  { name: 'hidden', html: true, t: '<p>Hi</p><div style="display:none">RUN</div>' },
  { name: 'hidden-attr', html: true, t: '<p>Hi</p><div hidden>RUN</div>' },
  { name: 'entity', html: true, t: '<p>&RUN;</p>' },
  { name: 'text', html: false, t: 'Hello, see below.\nRUN\nBest,\nSam' },
  { name: 'text-quoted', html: false, t: 'Hello\n> RUN\n' },
  { name: 'text-on-wrote', html: false, t: 'Hello\nOn RUN wrote:\n> x' },
  { name: 'text-sig', html: false, t: 'Hello\n-- \nRUN' },
  // a trigger word of a rule or an extractor, then the run (the rules and extractors start at their words)
  ...['order', 'tracking', 'invoice', 'code', 'important', '<', 'best', 'thanks', 'On', 'Re', 'From:', 'ignore', 'forward', 'call', '$', 'http', 'www', 'at', 'tomorrow', 'meeting', 'unsubscribe', 'AI', 'assistant', 'password', '-----', '##', 'system', 'new'].map((w) => ({ name: `kw:${w}`, html: false, t: `Hello,\n${w}RUN zz 1234` })),
  ...['order', 'tracking', 'invoice', 'code', 'important', '<', 'best', 'thanks', 'On', 'Re', 'From:', 'ignore', 'forward', 'call', '$', 'http', 'www', 'at', 'tomorrow', 'meeting', 'unsubscribe', 'AI', 'assistant', 'password', '-----', '##', 'system', 'new'].map((w) => ({ name: `kw-html:${w}`, html: true, t: `<p>Hello,</p><p>${w}RUN zz 1234</p>` })),
];
const UNITS: Record<string, string> = {
  x: 'x', sp: ' ', nl: '\n', cr: '\r', crlf: ' \r\n', tab: '\t', emsp: '\u2003', lt: '<', gt: '>', dash: '-', amp: '&', hash: '#',
  dot: '.', digit: '1', semi: ';', eq: '=', quot: '"', colon: ':', paren: '(', at: '@', slash: '/', zw: '\u200b',
  star: '*', under: '_', tilde: '~', pipe: '|', plus: '+', brack: '[', brace: '{', tick: '`', apos: "'", bang: '!', qm: '?', comma: ',', pct: '%', dollar: '$', bsl: '\\', nbsp: '\u00a0', vt: '\v',
  'a_': 'a ', 'x.': 'x.', 'ab1': 'ab1 ', '1-': '1-', 'x@': 'x@', 'w.': 'www.', '>sp': '> ',
};
const only = arg('--only')?.split(',');
const prefix = arg('--prefix');
const units = arg('--units')?.split(',') ?? Object.keys(UNITS);
const constructs = CONSTRUCTS.filter((c) => (!only || only.includes(c.name)) && (!prefix || c.name.startsWith(prefix)));

// The worker: imports one build's dist and times one call per message it is sent.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const clf = await import(workerData.root + '/dist/classifier/index.js');
  const parse = workerData.parse ? await import(workerData.root + '/dist/mail/parse.js') : null;
  const H = { messagesFromSender: 0, messagesFromDomain: 0, repliesFromSender: 0, sendsToSender: 0, spfPass: null, dkimPass: null, suppressed: false, complaints: 0 };
  const warm = { from: 'a@b.example', subject: 'hi', text: 'Hello there, how are you?', html: '<p>Hi <b>there</b></p><!-- a comment here -->', classifyIntent: true, history: H };
  for (let i = 0; i < 30; i++) clf.classifyInbound(warm, new Date(0));
  parentPort.on('message', (m) => {
    const t0 = performance.now();
    let q = null;
    if (m.parse) {
      const raw = Buffer.from('From: a@b.example\\r\\nTo: c@d.example\\r\\nSubject: hi\\r\\nContent-Type: text/html; charset=utf-8\\r\\n\\r\\n' + m.body, 'utf8');
      parse.parseAndExtract(raw).then(() => parentPort.postMessage({ ms: performance.now() - t0, q }));
      return;
    }
    const c = clf.classifyInbound({ from: 'a@b.example', subject: 'hi', text: m.html ? '' : m.body, html: m.html ? m.body : null, classifyIntent: true, history: H }, new Date(0));
    parentPort.postMessage({ ms: performance.now() - t0, q: c.injection_score });
  });
  parentPort.postMessage({ ready: true });
})();
`;

class Runner {
  private readonly w: TimedWorker<{ body: string; html: boolean; parse: boolean }, { ms: number }>;
  constructor(root: string) {
    this.w = new TimedWorker(WORKER, { root: pathToFileURL(root).href, parse: PARSE }, TIMEOUT);
  }
  /** ms of one call, or null when it ran past the timeout (the worker is replaced). */
  async time(body: string, html: boolean, parse: boolean): Promise<number | null> {
    return (await this.w.run({ body, html, parse }))?.ms ?? null;
  }
  close(): Promise<void> {
    return this.w.close();
  }
}

const fmt = (ms: number | null) => (ms === null ? `>${TIMEOUT}` : ms < 10 ? ms.toFixed(2) : ms.toFixed(0));
console.log(`# classifier-linear: sizes ${SIZES.map((s) => s / 1024 + 'K').join(' ')}, timeout ${TIMEOUT} ms, builds ${builds.map((b) => b.name).join(', ')}${PARSE ? ', parseAndExtract' : ''}`);
console.log(`# load average at start: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const runners = builds.map((b) => new Runner(b.root));
const flagged: string[] = [];
console.log(['construct', 'unit', 'build', ...SIZES.map((s) => `${s / 1024}K ms`), 'growth'].join('\t'));
for (const c of constructs) {
  for (const u of units) {
    const unit = UNITS[u];
    for (let b = 0; b < builds.length; b++) {
      const times: (number | null)[] = [];
      for (const size of SIZES) {
        if (times.length && times[times.length - 1] === null) {
          times.push(null);
          continue;
        }
        const run = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
        const body = c.t.replace('RUN', () => run);
        // median of three when fast, one run when slow
        const first = await runners[b].time(body, c.html, PARSE && c.html);
        if (first !== null && first < 200) {
          const more = [first, (await runners[b].time(body, c.html, PARSE && c.html)) ?? Infinity, (await runners[b].time(body, c.html, PARSE && c.html)) ?? Infinity].sort((x, y) => x - y);
          times.push(more[1]);
        } else times.push(first);
      }
      // time ratio over size ratio, both from the smallest size with a floor of 0.5 ms (timer noise)
      const growth = growthOf(times, SIZES, 0.5);
      const line = [c.name, u, builds[b].name, ...times.map(fmt), growth === Infinity ? 'cut' : growth.toFixed(2)];
      console.log(line.join('\t'));
      if (superlinear(times, growth, 20)) flagged.push(line.join(' '));
    }
  }
}
await finish(runners, flagged, 20);
