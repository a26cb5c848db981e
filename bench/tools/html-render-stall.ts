/**
 * Main-thread cost of one sanitised-HTML view of crafted markup (GET /v1/messages/received/{id}/html),
 * before and after it moved to the worker pool, alternated in one run: the stored body of an
 * outside tester's mail (1,048,576 characters of nested `<div>`s, MAX_BODY_CHARS) sanitised
 * inline on this thread (before), then through the pool's MessageWork.sanitizeHtml (after), where
 * the figure is this thread's longest event-loop stall while the render runs in a worker.
 *
 *   npx tsx bench/tools/html-render-stall.ts [rounds=3]
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sanitizeMailHtml } from '../../src/mail/html-sanitize.js';
import { createPipeline } from '../../src/server/pipeline/index.js';
import { silentLogger } from '../../src/shared/log.js';

const rounds = Number(process.argv[2] ?? 3);
const html = '<div>'.repeat(200_000).slice(0, 1_048_576);
// A budget no render here reaches: the figure is the whole render's cost.
const p = createPipeline({ workers: 2, budgetMs: 120_000, log: silentLogger });
await p.ready();
await p.work.sanitizeHtml('<i>warm</i>', { remoteImages: false });
sanitizeMailHtml('<i>warm</i>', { remoteImages: false });
for (let round = 0; round < rounds; round++) {
  const c = process.cpuUsage();
  let t = performance.now();
  sanitizeMailHtml(html, { remoteImages: false });
  console.log(`inline: main thread held ${Math.round(performance.now() - t)} ms (its CPU ${Math.round(process.cpuUsage(c).user / 1000)} ms)`);
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const elu = performance.eventLoopUtilization();
  t = performance.now();
  const out = await p.work.sanitizeHtml(html, { remoteImages: false });
  const busy = performance.eventLoopUtilization(elu);
  h.disable();
  // The stall includes time the OS gave the core to another thread (a loaded machine); the busy
  // time is what this thread spent running JavaScript and native work (the messages' copies).
  console.log(`pool:   render ${Math.round(performance.now() - t)} ms in a worker; main thread busy ${busy.active.toFixed(1)} ms, longest stall ${(h.max / 1e6).toFixed(1)} ms `
    + `(p99 ${(h.percentile(99) / 1e6).toFixed(1)} ms); ${'html' in out ? `${out.html.length} characters` : out.cut}`);
}
await p.close();
