import { MAX_BODY_CHARS } from '../../../src/mail/parse.js';
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  authWorkers, createPipeline, WorkerPool, BudgetExceeded, PoolClosed, DEFAULT_WORKER_YOUNG_MB, type Pipeline,
} from '../../../src/server/pipeline/index.js';
import { silentLogger } from '../../../src/shared/log.js';
import { QUARANTINE_THRESHOLD } from '../../../src/classifier/quarantine.js';

const HISTORY = {
  messagesFromSender: 0, messagesFromDomain: 0, repliesFromSender: 0, sendsToSender: 0,
  spfPass: null, dkimPass: null, suppressed: false, complaints: 0,
};

function eml(body: string, type = 'text/plain'): Buffer {
  return Buffer.from(`From: Alice <alice@sender.test>\r\nTo: agent@local.mailagent.localhost\r\nSubject: Hello there\r\nMIME-Version: 1.0\r\nContent-Type: ${type}; charset=utf-8\r\n\r\n${body}\r\n`);
}

/** `<div>` × n: mailparser's HTML-to-text pass is superlinear on it (seconds at n = 100,000). */
const nested = (n: number) => eml('<div>'.repeat(n).match(/.{1,990}/g)!.join('\r\n'), 'text/html');

/**
 * A stand-in worker speaking the pool's protocol, in a temporary directory: `body(dir)` is the code
 * run for each job (`id`, `job`, `parentPort`, `threadId`, `existsSync`, `writeFileSync`, `join` in scope).
 */
function standInWorker(body: (dir: string) => string): { dir: string; url: URL } {
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-pool-'));
  const file = join(dir, 'stand-in-worker.mjs');
  writeFileSync(file, `
    import { parentPort, threadId } from 'node:worker_threads';
    import { existsSync, writeFileSync } from 'node:fs';
    import { join } from 'node:path';
    parentPort.on('message', (msg) => {
      if (!msg.jobs) return;
      for (const { id, job } of msg.jobs) {
        ${body(dir)}
      }
    });
    parentPort.postMessage({ ready: true });
  `);
  return { dir, url: pathToFileURL(file) };
}

/** A parse job whose raw bytes are `text`: the stand-in workers read their orders from it. */
const textJob = (text: string) => ({ kind: 'parse' as const, raw: Buffer.from(text), safe: false });

/** A pool of two stand-ins that starts one and grows after a job holds a worker warm after `growWarmJobs` jobs for 100 ms. */
const growingPool = (url: URL, growWarmJobs: number) =>
  new WorkerPool({ size: 2, startSize: 1, growAfterHeldMs: 100, growAfterWaitMs: 60_000, growWarmJobs, budgetMs: 60_000, maxHeapMb: 64, log: silentLogger, workerUrl: url });

let open: Pipeline[] = [];
afterEach(async () => {
  await Promise.all(open.map((p) => p.close()));
  open = [];
});
async function pipeline(budgetMs: number, workers = 2): Promise<Pipeline> {
  const p = createPipeline({ workers, workersAtStart: workers, budgetMs, log: silentLogger });
  open.push(p);
  await p.ready();
  return p;
}

describe('pipeline worker pool (src/server/pipeline)', () => {
  it('parses, extracts and classifies in a worker, with the same results as inline', async () => {
    const p = await pipeline(10_000);
    const r = await p.work.parse(eml('Thanks, see you Friday.\n\nOn Mon, Bob wrote:\n> earlier text'));
    expect(r.truncated).toBe(false);
    expect(r.parsed.subject).toBe('Hello there');
    expect(r.parsed.from).toEqual({ address: 'alice@sender.test', name: 'Alice' });
    expect(r.extracted).toBe('Thanks, see you Friday.');
    const c = await p.work.classify({ from: 'alice@sender.test', subject: 'Your code', text: 'Your code is 482913', classifyIntent: true, history: HISTORY }, Date.now());
    expect(c.truncated).toBe(false);
    expect(c.classification.intent).toBe('verification_code');
    const s = await p.work.screen({ subject: 'Invoice 1234', text: 'Your invoice is attached.', to: ['a@b.test'], isReply: false });
    expect(typeof s.score).toBe('number');
    expect(p.stats()).toMatchObject({ size: 2, jobs: 3, overruns: 0 });
  });

  it('a message over its budget: the worker is replaced, the message is parsed again in safe mode and flagged', async () => {
    // The full parse of this message takes 5-20 s of a worker, the safe pass ~20 ms on an idle
    // core and ~200 ms at load 40: 2 s cuts the one and leaves the other room (300 ms did not, at
    // load 16-40: the safe pass overran too and the message came back as headers only).
    // Since session 14 such markup does not reach html-to-text (mail/parse.ts htmlTextCost): the test
    // hook leaves it unguarded in these workers, so the full parse still overruns (replacements are guarded).
    process.env.MAILAGENT_TEST_UNGUARDED_HTML_TO_TEXT = '1';
    let p: Pipeline;
    try {
      p = await pipeline(2000);
    } finally {
      delete process.env.MAILAGENT_TEST_UNGUARDED_HTML_TO_TEXT;
    }
    // That the budget cut it shows in the problems and the overrun count below (no wall-time bound:
    // timing targets live in bench/, and a loaded machine broke one here).
    const r = await p.work.parse(eml(('<div>'.repeat(100_000) + 'hello <b>inside</b> &amp; out').match(/.{1,990}/g)!.join('\r\n'), 'text/html'));
    expect(r.truncated).toBe(true);
    expect(r.parsed.subject).toBe('Hello there');
    expect(r.parsed.html?.length).toBeGreaterThan(400_000);
    expect(r.parsed.problems.join(' ')).toMatch(/extraction cut short: the full parse ran over its 2000 ms budget/);
    // The safe pass has no HTML-to-text conversion: an HTML-only message gets its tags stripped
    // (before, its text came back empty; with 6 MB workers a loaded machine hit that in
    // test/integration/inbound/pipeline.test.ts, whose full parse of 20,000 nested divs overran).
    expect(r.parsed.text).toBe('hello inside & out');
    expect(r.extracted).toBe('hello inside & out');
    const st = p.stats();
    expect(st.overruns + st.crashes).toBeGreaterThanOrEqual(1);
    expect(st.restarts).toBeGreaterThanOrEqual(1);
    // The replacement worker takes the next message.
    const next = await p.work.parse(eml('Plain and small.'));
    expect(next).toMatchObject({ truncated: false, extracted: 'Plain and small.' });
  });

  it('when even the safe pass overruns, headers and body bytes are kept, and classification falls back in bounded steps', async () => {
    // A 1 ms budget: every job in the pool overruns, so each fallback runs. The body is made long
    // (~3 MB of lines) so that even the safe pass cannot finish within 1 ms on a fast machine with
    // the worker warm (mailparser is loaded before the pool reports ready).
    const p = createPipeline({ workers: 1, budgetMs: 1, log: silentLogger });
    open.push(p);
    await p.ready();
    const r = await p.work.parse(eml('Body text that survives.\r\n' + 'a line of filler text\r\n'.repeat(130_000)));
    expect(r.truncated).toBe(true);
    expect(r.parsed.subject).toBe('Hello there');
    expect(r.parsed.from?.address).toBe('alice@sender.test');
    expect(r.parsed.text).toContain('Body text that survives.');
    expect(r.parsed.problems.join(' ')).toMatch(/headers and body bytes kept only/);
    const c = await p.work.classify({ from: 'alice@sender.test', subject: 'Hello', text: 'x'.repeat(100_000), classifyIntent: true, history: HISTORY }, Date.now());
    expect(c.truncated).toBe(true);
    expect(c.classification.classifier_model).toMatch(/^mailagent-clf-/);
    // Fail closed (session 13): the last resort read the subject only, so the body's text was never
    // scanned — quarantined with hidden_content, never "clean" (an outside tester's injection after
    // a crafted comment was stored at 0.024 this way).
    expect(c.classification.injection_score).toBeGreaterThanOrEqual(QUARANTINE_THRESHOLD);
    expect(c.classification.injection_categories).toContain('hidden_content');
    const s = await p.work.screen({ subject: 'Hi', text: 'hello', to: ['a@b.test'], isReply: false });
    expect(typeof s.blocked).toBe('boolean');
  });

  it('classification cut short: a retry that read the bodies whole stands, one that read a prefix fails closed (session 13)', async () => {
    // A stand-in worker: the first classify job of each subject holds the thread past the budget
    // (a file marks it seen, so the replacement worker answers the retry), and every answer is
    // a clean classification of what it was given.
    const { dir, url } = standInWorker((dir) => `
      const seen = join(${JSON.stringify(dir)}, 'seen-' + job.input.subject);
      if (!existsSync(seen)) {
        writeFileSync(seen, '');
        const until = Date.now() + 60000;
        while (Date.now() < until) { /* past the budget */ }
      }
      parentPort.postMessage({ id, ok: true, result: { intent: 'unclassified', entities: {}, urgency: 0, injection_score: 0.02, injection_categories: [], sender_reputation: 0.5, classifier_model: 'stand-in', read: job.input.text.length } });
    `);
    const p = createPipeline({ workers: 1, budgetMs: 300, log: silentLogger, workerUrl: url });
    open.push(p);
    try {
      await p.ready();
      const whole = await p.work.classify({ from: 'a@b.test', subject: 'short', text: 'Lunch on Friday?', html: '<p>Lunch on Friday?</p>', classifyIntent: true, history: HISTORY }, Date.now());
      expect(whole.truncated).toBe(true);
      expect(whole.classification).toMatchObject({ injection_score: 0.02, injection_categories: [], read: 16 });
      const prefix = await p.work.classify({ from: 'a@b.test', subject: 'long', text: 'y'.repeat(40_000), html: null, classifyIntent: true, history: HISTORY }, Date.now());
      expect(prefix.truncated).toBe(true);
      expect(prefix.classification).toMatchObject({ injection_score: QUARANTINE_THRESHOLD, injection_categories: ['hidden_content'], read: 16 * 1024 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the pool itself: BudgetExceeded for an overrun, PoolClosed after close, queued jobs run in order', async () => {
    // A parse that overruns: 100,000 nested elements through mailparser's own html-to-text, which the
    // daemon's pre-scan would send to the linear strip (mail/parse.ts) — quick enough, on a quiet
    // machine, to finish inside the budget. The worker reads the test-only switch when it starts.
    process.env.MAILAGENT_TEST_UNGUARDED_HTML_TO_TEXT = '1';
    const pool = new WorkerPool({ size: 1, budgetMs: 200, maxHeapMb: 256, log: silentLogger });
    try {
      await pool.ready();
    } finally {
      delete process.env.MAILAGENT_TEST_UNGUARDED_HTML_TO_TEXT;
    }
    await expect(pool.run({ kind: 'parse', raw: nested(100_000), safe: false })).rejects.toBeInstanceOf(BudgetExceeded);
    // The replacement worker serves; its first parse loads and compiles the parser, which a loaded
    // machine can stretch past 200 ms: warm it up until it answers within the budget.
    for (let i = 0; i < 20; i++) {
      const warm = await pool.run({ kind: 'parse', raw: eml('warm'), safe: false }).then(() => true, (err) => {
        if (!(err instanceof BudgetExceeded)) throw err;
        return false;
      });
      if (warm) break;
    }
    const [a, b] = await Promise.all([
      pool.run({ kind: 'parse', raw: eml('first'), safe: false }),
      pool.run({ kind: 'parse', raw: eml('second'), safe: false }),
    ]) as { extracted: string }[];
    expect([a.extracted, b.extracted]).toEqual(['first', 'second']);
    await pool.close();
    await expect(pool.run({ kind: 'parse', raw: eml('late'), safe: false })).rejects.toBeInstanceOf(PoolClosed);
  });

  it('jobs queued in one turn go to a worker in one message; each is timed from the previous answer, and an overrun sends the rest of its batch to the next worker', async () => {
    // A stand-in worker speaking the pool's protocol: "sleep N" holds the thread N ms, "die" exits.
    const dir = mkdtempSync(join(tmpdir(), 'mailagent-pool-'));
    const file = join(dir, 'stand-in-worker.mjs');
    writeFileSync(file, `
      import { parentPort } from 'node:worker_threads';
      const messages = [];
      parentPort.on('message', (msg) => {
        if (!msg.jobs) return;
        messages.push(msg.jobs.length);
        for (const { id, job } of msg.jobs) {
          const text = Buffer.from(job.raw).toString();
          if (text === 'die') process.exit(3);
          const ms = Number(text.split(' ')[1] ?? 0);
          const until = Date.now() + ms;
          while (Date.now() < until) { /* a synchronous job */ }
          parentPort.postMessage({ id, ok: true, result: { text, messages: [...messages] } });
        }
      });
      parentPort.postMessage({ ready: true });
    `);
    const pool = new WorkerPool({ size: 1, budgetMs: 400, maxHeapMb: 64, log: silentLogger, workerUrl: pathToFileURL(file) });
    try {
      await pool.ready();
      // Four jobs of 150 ms each, sent in one message: 600 ms in all, more than one budget, but
      // each job has its own budget from the answer before it.
      const four = await Promise.all(['sleep 150', 'sleep 150', 'sleep 150', 'sleep 150'].map((t) => pool.run(textJob(t)))) as { text: string; messages: number[] }[];
      expect(four.map((r) => r.text)).toEqual(['sleep 150', 'sleep 150', 'sleep 150', 'sleep 150']);
      expect(four[3].messages).toEqual([4]);
      // An overrun in the middle of a batch: it alone fails; the jobs after it run on the replacement.
      const results = await Promise.allSettled(['sleep 1', 'sleep 2000', 'sleep 2', 'sleep 3'].map((t) => pool.run(textJob(t))));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(BudgetExceeded);
      expect(((results[3] as PromiseFulfilledResult<unknown>).value as { text: string }).text).toBe('sleep 3');
      // A worker that dies under a job: that job fails, the rest of its batch runs on the replacement.
      const after = await Promise.allSettled(['die', 'sleep 1'].map((t) => pool.run(textJob(t))));
      expect(after.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
      expect(pool.stats()).toMatchObject({ overruns: 1, crashes: 1 });
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('SPF/DKIM/DMARC rounds run on the first worker only (one copy of mailauth), the other jobs on any worker', async () => {
    expect([1, 2, 3, 4, 8, 64].map(authWorkers)).toEqual([1, 1, 1, 1, 2, 16]);
    const { dir, url } = standInWorker(() => `
      const until = Date.now() + 20;
      while (Date.now() < until) { /* a synchronous job */ }
      parentPort.postMessage({ id, ok: true, result: { kind: job.kind, threadId } });
    `);
    const pool = new WorkerPool({ size: 2, budgetMs: 5_000, maxHeapMb: 64, log: silentLogger, workerUrl: url });
    try {
      await pool.ready();
      const auth = { kind: 'auth' as const, input: { raw: Buffer.from('x'), ip: null, helo: null, mailFrom: '', mta: 'mx', answers: {} } };
      const parse = { kind: 'parse' as const, raw: Buffer.from('x'), safe: false };
      // Rounds first in the queue: the second worker skips them and takes the parses.
      const jobs = [auth, auth, auth, auth, auth, auth, parse, parse, parse, parse];
      const out = await Promise.all(jobs.map((j) => pool.run(j))) as { kind: string; threadId: number }[];
      const authThreads = new Set(out.filter((r) => r.kind === 'auth').map((r) => r.threadId));
      const parseThreads = new Set(out.filter((r) => r.kind === 'parse').map((r) => r.threadId));
      expect(authThreads.size).toBe(1);
      expect([...parseThreads].some((t) => !authThreads.has(t))).toBe(true);
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts one worker; a second starts only when a job holds the first with mail waiting, takes that mail, and stays (session 14)', async () => {
    // "sleep N" holds its worker N ms, "hold" until the test writes the file `go`; each answer names its thread.
    const { dir, url } = standInWorker((d) => `
      const text = Buffer.from(job.raw).toString();
      if (text === 'hold') while (!existsSync(${JSON.stringify(join(d, 'go'))})) { /* a job that holds its worker */ }
      const until = Date.now() + Number(text.split(' ')[1] ?? 0);
      while (Date.now() < until) { /* a synchronous job */ }
      parentPort.postMessage({ id, ok: true, result: { threadId } });
    `);
    const pool = growingPool(url, 10);
    try {
      await pool.ready();
      expect(pool.stats()).toMatchObject({ size: 1, max: 2 });
      // Mail one job at a time never waits for a worker: the pool stays at one.
      const one = new Set<number>();
      for (let i = 0; i < 20; i++) one.add((await pool.run(textJob('sleep 1')) as { threadId: number }).threadId);
      expect(one.size).toBe(1);
      await new Promise((r) => setTimeout(r, 300));
      expect(pool.stats().size).toBe(1);
      // A job that holds the worker (sent alone: the next turn's jobs cannot join its batch), then
      // mail behind it: a second worker starts and answers it while the first is still held.
      const held = pool.run(textJob('hold')) as Promise<{ threadId: number }>;
      await new Promise((r) => setTimeout(r, 50));
      const behind = await Promise.all([pool.run(textJob('sleep 1')), pool.run(textJob('sleep 1'))]) as { threadId: number }[];
      expect(pool.stats()).toMatchObject({ size: 2, max: 2, busy: 1 });
      writeFileSync(join(dir, 'go'), '');
      const first = await held;
      for (const b of behind) expect(b.threadId).not.toBe(first.threadId);
      expect([...one]).toEqual([first.threadId]);
      // It stays, and the pool grows no further than its size.
      await Promise.all([pool.run(textJob('sleep 200')), pool.run(textJob('sleep 200')), pool.run(textJob('sleep 1'))]);
      expect(pool.stats()).toMatchObject({ size: 2, max: 2, overruns: 0, crashes: 0 });
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a job that holds a worker still in its first jobs (V8 still compiling) does not start another', async () => {
    const { dir, url } = standInWorker((d) => `
      if (Buffer.from(job.raw).toString() === 'hold') while (!existsSync(${JSON.stringify(join(d, 'go'))})) { /* a job that holds its worker */ }
      parentPort.postMessage({ id, ok: true, result: { threadId } });
    `);
    const pool = growingPool(url, 1_000);
    try {
      await pool.ready();
      const held = pool.run(textJob('hold'));
      await new Promise((r) => setTimeout(r, 50));
      const behind = pool.run(textJob('next'));
      await new Promise((r) => setTimeout(r, 600));
      expect(pool.stats()).toMatchObject({ size: 1, queued: 1 });
      writeFileSync(join(dir, 'go'), '');
      await Promise.all([held, behind]);
      expect(pool.stats().size).toBe(1);
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('short jobs that wait long for the one worker (more mail than it keeps up with) start a second', async () => {
    const { dir, url } = standInWorker(() => `
      const until = Date.now() + Number(Buffer.from(job.raw).toString().split(' ')[1] ?? 0);
      while (Date.now() < until) { /* a synchronous job */ }
      parentPort.postMessage({ id, ok: true, result: { threadId } });
    `);
    // No job holds its worker past growAfterHeldMs; the last ones wait far past growAfterWaitMs.
    const pool = new WorkerPool({ size: 3, startSize: 1, growAfterHeldMs: 60_000, growAfterWaitMs: 200, budgetMs: 60_000, maxHeapMb: 64, log: silentLogger, workerUrl: url });
    try {
      await pool.ready();
      const out = await Promise.all(Array.from({ length: 40 }, () => pool.run(textJob('sleep 50')))) as { threadId: number }[];
      expect(pool.stats().size).toBeGreaterThanOrEqual(2);
      expect(new Set(out.map((r) => r.threadId)).size).toBeGreaterThanOrEqual(2);
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the daemon\'s pipeline starts one worker of its maximum and parses with it', async () => {
    const p = createPipeline({ workers: 2, budgetMs: 10_000, log: silentLogger });
    open.push(p);
    await p.ready();
    expect(p.stats()).toMatchObject({ size: 1, max: 2 });
    const r = await p.work.parse(eml('Hello from the first worker.'));
    expect(r).toMatchObject({ truncated: false, extracted: 'Hello from the first worker.' });
    expect(await p.heap()).toHaveLength(1);
  });

  describe('memory caps (docs/security.md: heap and young generation of one worker thread)', () => {
    /** A message with one base64 attachment of `mb` MB (random bytes: they do not compress into anything smaller). */
    const withAttachment = (mb: number) => {
      const bytes = Buffer.alloc(mb * 1024 * 1024);
      for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32LE((i * 2654435761) >>> 0, i);
      return Buffer.from([
        'From: Alice <alice@sender.test>', 'To: agent@local.mailagent.localhost', 'Subject: The big file', 'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="b1"', '', '--b1', 'Content-Type: text/plain; charset=utf-8', '', 'See attached.', '--b1',
        'Content-Type: application/octet-stream; name="big.bin"', 'Content-Transfer-Encoding: base64', 'Content-Disposition: attachment; filename="big.bin"', '',
        bytes.toString('base64').match(/.{1,76}/g)!.join('\r\n'), '--b1--', '',
      ].join('\r\n'));
    };

    it('each worker reports its heap; the young generation stays under its cap and a big legitimate message parses in full', async () => {
      const p = await pipeline(60_000);
      const r = await p.work.parse(withAttachment(20));
      expect(r.truncated).toBe(false);
      expect(r.parsed.attachments.map((a) => a.content.length)).toEqual([20 * 1024 * 1024]);
      expect(r.extracted).toBe('See attached.');
      for (let i = 0; i < 200; i++) await p.work.parse(eml(`Message ${i} `.repeat(100)));
      const heaps = await p.heap();
      expect(heaps).toHaveLength(2);
      for (const h of heaps) {
        expect(h).not.toBeNull();
        expect(h!.used).toBeGreaterThan(1024 * 1024);
        expect(h!.total).toBeGreaterThanOrEqual(h!.used);
        // V8's new space is 2/3 of the young generation (two semi-spaces of a third each).
        expect(h!.young).toBeLessThanOrEqual((DEFAULT_WORKER_YOUNG_MB * 2 / 3) * 1024 * 1024);
        expect(h!.limit).toBeGreaterThan(512 * 1024 * 1024);
      }
    });

    it('a message of the default size cap (40 MB of text) parses within the caps; its text is then cut at the body cap', async () => {
      // The old-generation cap stays far above what a message within smtpMaxMessageBytes needs: a
      // worker that reaches it while allocating one big string can abort the whole process, not
      // just its thread (Node issue 47224), so the cap is not a way to bound a message's memory.
      const p = await pipeline(120_000, 1);
      const line = 'All work and no play makes Jack a dull boy. '.repeat(22) + '\r\n';
      const r = await p.work.parse(eml(line.repeat(Math.floor((40 * 1024 * 1024 - 200) / line.length))));
      // Parsed whole inside the caps (no crash, no overrun); the stored text is then cut at the
      // body cap (MAX_BODY_CHARS, docs/security.md) and flagged — the raw keeps every byte.
      expect(p.stats()).toMatchObject({ crashes: 0, overruns: 0 });
      expect(r.parsed.text!.length).toBe(MAX_BODY_CHARS);
      expect(r.truncated).toBe(true);
    });
  });
});
