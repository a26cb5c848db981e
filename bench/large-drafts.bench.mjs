// Large drafts and the main thread (issue #13): the longest turn of the daemon's main thread while it
// takes a draft with a 24.5 MiB attachment (34 MB of JSON): POST /v1/drafts, PATCH /v1/drafts/{id}
// replacing the attachment, PATCH of the subject alone, POST /v1/drafts/{id}/send (test key), and a
// live draft's send through a local SMTP sink as the relay.
// Usage: node bench/large-drafts.bench.mjs <before build root> <after build root> [rounds, default 3]
// Each build root is built (npm run build). Builds alternate (A B A B …) in one run, each round on a
// fresh data dir with a daemon from bench/tools/stall-daemon.mjs (event-loop delay monitor on its
// main thread: `wall`, the most delay of one turn, mostly waiting for a core on a loaded machine;
// `cpu`, the most CPU time one turn took, from schedstat). One request at a time. The load average
// is printed per round.
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sink, load, sleep, stallDaemon } from './tools/stall-common.mjs';

const [beforeRoot, afterRoot, roundsArg] = process.argv.slice(2);
if (!beforeRoot || !afterRoot) {
  console.error('usage: node bench/large-drafts.bench.mjs <before build root> <after build root> [rounds]');
  process.exit(2);
}
const ROUNDS = Number(roundsArg ?? 3);
const attachment = () => ({ filename: 'a.bin', content_base64: randomBytes(Math.floor(24.5 * 1024 * 1024)).toString('base64') });
const createBody = Buffer.from(JSON.stringify({ agent: 'agent', to: 'bob@example.com', subject: 'big', body_text: 'See the attachment.', attachments: [attachment()] }));
const patchBody = Buffer.from(JSON.stringify({ attachments: [attachment()] }));

function call(url, key, method, path, b) {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, {
      method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': b.length },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        let body = null;
        try { body = JSON.parse(Buffer.concat(chunks).toString()); } catch { /* not JSON */ }
        resolve({ status: res.statusCode, body, ms: performance.now() - t0 });
      });
    });
    req.on('error', () => resolve({ status: 0, body: null, ms: performance.now() - t0 }));
    req.end(b);
  });
}

async function round(name, root) {
  const home = mkdtempSync(join(tmpdir(), 'large-drafts-'));
  const relay = await sink();
  const { url, testKey, liveKey, next, say, stop } = await stallDaemon(root, home, { relay: relay.url });
  await sleep(3000); // validators and the body worker warm up
  await call(url, testKey, 'POST', '/v1/drafts', createBody);
  /** One request with the monitor reset before it: status, cpu / wall of the longest turn. */
  const measured = async (key, method, path, b) => {
    say('reset');
    await sleep(200);
    const res = await call(url, key, method, path, b);
    say('report');
    const r = await next();
    return { res, text: `${res.status} ${r.maxCpuMs === null ? '-' : r.maxCpuMs.toFixed(0)} / ${r.maxMs.toFixed(0)}` };
  };
  const loadAt = load();
  const out = { build: name, load: loadAt, create: [], patch: [], patchSubject: null, send: [], liveSend: null };
  const ids = [];
  for (let i = 0; i < 2; i++) {
    const c = await measured(testKey, 'POST', '/v1/drafts', createBody);
    ids.push(c.res.body?.id);
    out.create.push(c.text);
  }
  for (let i = 0; i < 2; i++) out.patch.push((await measured(testKey, 'PATCH', `/v1/drafts/${ids[0]}`, patchBody)).text);
  out.patchSubject = (await measured(testKey, 'PATCH', `/v1/drafts/${ids[0]}`, Buffer.from('{"subject":"edited"}'))).text;
  for (const id of ids) out.send.push((await measured(testKey, 'POST', `/v1/drafts/${id}/send`, Buffer.from('{}'))).text);
  const live = await call(url, liveKey, 'POST', '/v1/drafts', createBody);
  out.liveSend = (await measured(liveKey, 'POST', `/v1/drafts/${live.body?.id}/send`, Buffer.from('{}'))).text;
  await stop();
  await relay.close();
  rmSync(home, { recursive: true, force: true });
  return out;
}

console.log(`create body ${(createBody.length / 1e6).toFixed(1)} MB; load ${load()}; each step: status cpu / wall ms of the longest main-thread turn`);
for (let k = 0; k < ROUNDS; k++) {
  for (const [name, root] of [['before', beforeRoot], ['after', afterRoot]]) console.log(JSON.stringify(await round(name, root)));
}
console.log(`load at the end ${load()}`);
