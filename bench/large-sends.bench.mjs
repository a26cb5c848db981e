// Large sends and the main thread (issue #13): the longest stall of the daemon's main thread while
// it takes a test-mode POST /v1/messages with a 24.5 MiB attachment, alone and ten at once, and
// GET /v1/health's latency meanwhile; then live sends (live key) through a local SMTP sink as the
// relay, which add the MIME build and the SMTP hand-over.
// Usage: node bench/large-sends.bench.mjs <before build root> <after build root> [rounds, default 3]
// Each build root is built (npm run build). Builds alternate (A B A B …) in one run, each round on a
// fresh data dir with a daemon from bench/tools/stall-daemon.mjs (event-loop delay monitor on its
// main thread, 1 ms resolution; `maxCpuMs`: the most CPU time one turn took, from schedstat). The
// buffered-body budget is lifted (httpMaxBufferedBodyBytes 2 GiB) so all ten bodies are taken at
// once rather than eight told to retry. The load average is printed per round.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sink, load, sleep, stallDaemon } from './tools/stall-common.mjs';

const [beforeRoot, afterRoot, roundsArg] = process.argv.slice(2);
if (!beforeRoot || !afterRoot) {
  console.error('usage: node bench/large-sends.bench.mjs <before build root> <after build root> [rounds]');
  process.exit(2);
}
const ROUNDS = Number(roundsArg ?? 3);
const CONCURRENT = Number(process.env.CONCURRENT ?? 10);
const body = Buffer.from(JSON.stringify({
  to: 'bob@example.com', subject: 'big', body_text: 'See the attachment.',
  attachments: [{ filename: 'a.bin', content_base64: randomBytes(Math.floor(24.5 * 1024 * 1024)).toString('base64') }],
}));
const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
};

function post(url, key, b) {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request(`${url}/v1/messages`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': b.length },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - t0 }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - t0 }));
    req.end(b);
  });
}
const curlHealth = (url) => new Promise((resolve) => {
  execFile('curl', ['-s', '-o', '/dev/null', '-w', '%{time_total}', `${url}/v1/health`], (err, out) => resolve(err ? NaN : Number(out) * 1000));
});

async function round(name, root) {
  const home = mkdtempSync(join(tmpdir(), 'large-sends-'));
  const relay = await sink();
  const { url, testKey, liveKey, next, say, stop } = await stallDaemon(root, home, { httpMaxBufferedBodyBytes: 2 * 1024 ** 3, relay: relay.url });
  await sleep(3000); // validators and the body worker warm up
  await post(url, testKey, body);
  const stall = async (n, key = testKey) => {
    say('reset');
    await sleep(200);
    const health = [];
    let running = true;
    const poller = (async () => {
      while (running) {
        const t = Date.now();
        health.push(await curlHealth(url));
        await sleep(Math.max(0, 100 - (Date.now() - t)));
      }
    })();
    const res = await Promise.all(Array.from({ length: n }, () => post(url, key, body)));
    running = false;
    await poller;
    say('report');
    const r = await next();
    const f = (x) => x.toFixed(0);
    return {
      statuses: [...new Set(res.map((x) => x.status))].join(','), sendMs: f(q(res.map((x) => x.ms), 0.5)),
      maxStallMs: f(r.maxMs), maxCpuStallMs: r.maxCpuMs === null ? null : f(r.maxCpuMs),
      health: `median ${f(q(health, 0.5))} / p90 ${f(q(health, 0.9))} / max ${f(Math.max(...health))} ms (${health.length})`,
    };
  };
  const loadAt = load();
  const one = [await stall(1), await stall(1), await stall(1)];
  const ten = await stall(CONCURRENT);
  const live = [await stall(1, liveKey), await stall(1, liveKey)];
  const liveThree = await stall(3, liveKey);
  await stop();
  await relay.close();
  rmSync(home, { recursive: true, force: true });
  return { build: name, load: loadAt, one, ten, live, liveThree };
}

console.log(`body ${(body.length / 1e6).toFixed(1)} MB; ${CONCURRENT} concurrent; load ${load()}`);
for (let k = 0; k < ROUNDS; k++) {
  for (const [name, root] of [['before', beforeRoot], ['after', afterRoot]]) console.log(JSON.stringify(await round(name, root)));
}
console.log(`load at the end ${load()}`);
