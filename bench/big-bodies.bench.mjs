// Large request bodies: what 10 concurrent ~33 MB sends (one 24.5 MiB attachment, within the caps)
// and 12 concurrent ~46 MB sends (attachments over the 25 MB cap) do to everyone else's requests.
// Usage: [LIFTED=1] node bench/big-bodies.bench.mjs <before build root> <after build root> [rounds, default 2]
// Each build root is built (npm run build). Builds alternate (A B A B …) in one run, each round on a
// fresh data dir with a real `mailagent serve`; a test-mode owner key sends (never rate-limited).
// Per round: GET /v1/health latency (curl's time_total, one poll every 250 ms) while the bodies are
// sent (median, p90, max), each send's status and time, the daemon's RSS (before, peak, 5 s and
// 30 s after the last answer, VmRSS of the serve process), and the load average.
import { spawn, spawnSync, execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [beforeRoot, afterRoot, roundsArg] = process.argv.slice(2);
if (!beforeRoot || !afterRoot) {
  console.error('usage: node bench/big-bodies.bench.mjs <before build root> <after build root> [rounds]');
  process.exit(2);
}
const ROUNDS = Number(roundsArg ?? 2);
const CONCURRENT = Number(process.env.CONCURRENT ?? 10);
const OVER_CONCURRENT = Number(process.env.OVER_CONCURRENT ?? 12);

/** A send request whose attachments decode to `decodedMiB` MiB in all (two attachments, base64). */
function sendBody(decodedMiB) {
  const a = Math.floor(decodedMiB * 0.75 * 1024 * 1024);
  const b = Math.floor(decodedMiB * 1024 * 1024) - a;
  return Buffer.from(JSON.stringify({
    to: 'bob@example.com', subject: 'big', body_text: 'See the attachments.',
    attachments: [
      { filename: 'a.bin', content_base64: randomBytes(a).toString('base64') },
      { filename: 'b.bin', content_base64: randomBytes(b).toString('base64') },
    ],
  }));
}
const within = sendBody(24.5); // ~34 MB of JSON, 25.7 MB decoded: within the 25 MiB cap
const over = sendBody(34); // ~47.5 MB of JSON: under the 48 MiB body cap, over the attachment cap

const rss = (pid) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return NaN;
  }
};
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
};

function post(url, key, body) {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request(`${url}/v1/messages`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': body.length },
    }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => {
        let code = '';
        try {
          code = JSON.parse(Buffer.concat(parts).toString()).error?.code ?? '';
        } catch { /* not JSON */ }
        resolve({ status: res.statusCode, code, ms: performance.now() - t0 });
      });
    });
    req.on('error', (err) => resolve({ status: 0, code: err.code, ms: performance.now() - t0 }));
    req.end(body);
  });
}

const curlHealth = (url) => new Promise((resolve) => {
  execFile('curl', ['-s', '-o', '/dev/null', '-w', '%{time_total}', `${url}/v1/health`], (err, out) => resolve(err ? NaN : Number(out) * 1000));
});

async function burst(url, key, body, n, pid) {
  const health = [];
  let peak = rss(pid);
  let running = true;
  const poller = (async () => {
    while (running) {
      const t = Date.now();
      health.push(await curlHealth(url));
      peak = Math.max(peak, rss(pid));
      await sleep(Math.max(0, 250 - (Date.now() - t)));
    }
  })();
  const results = await Promise.all(Array.from({ length: n }, () => post(url, key, body)));
  running = false;
  await poller;
  return { health, results, peak };
}

async function round(name, root, extraEnv = {}) {
  const home = mkdtempSync(join(tmpdir(), 'big12-'));
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'c'), XDG_DATA_HOME: join(home, 'd') };
  for (const k of Object.keys(env)) if (k.startsWith('MAILAGENT_')) delete env[k];
  Object.assign(env, extraEnv);
  const dd = join(home, 'data');
  spawnSync(process.execPath, [join(root, 'bin/mailagent'), 'init', '--data-dir', dd], { env });
  const key = JSON.parse(readFileSync(join(home, 'c/mailagent/config.json'), 'utf8')).profiles.default.test_key;
  const child = spawn(process.execPath, [join(root, 'bin/mailagent'), 'serve', '--port', '0', '--smtp-port', '0', '--data-dir', dd, '--log-level', 'silent'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const url = await new Promise((res) => child.stderr.on('data', (d) => { err += d; const m = /ready: API (http:\S+)/.exec(err); if (m) res(m[1]); }));
  await sleep(3000); // validators warm up from 1 s after listen
  const warm = await post(url, key, within);
  const idle = [];
  for (let i = 0; i < 8; i++) idle.push(await curlHealth(url));
  const rssBefore = rss(child.pid);
  const loadAt = load();
  const w = await burst(url, key, within, CONCURRENT, child.pid);
  await sleep(5000);
  const rss5 = rss(child.pid);
  const o = await burst(url, key, over, OVER_CONCURRENT, child.pid);
  await sleep(5000);
  const rssOver5 = rss(child.pid);
  await sleep(25_000);
  const rss30 = rss(child.pid);
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
  rmSync(home, { recursive: true, force: true });
  const count = (rs) => Object.entries(rs.reduce((m, r) => ({ ...m, [`${r.status}${r.code ? ' ' + r.code : ''}`]: (m[`${r.status}${r.code ? ' ' + r.code : ''}`] ?? 0) + 1 }), {})).map(([k, v]) => `${v}× ${k}`).join(', ');
  const f = (x) => x.toFixed(0);
  return {
    build: name, load: loadAt, warm: `${warm.status} ${f(warm.ms)} ms`,
    idleHealthMs: f(q(idle, 0.5)),
    within: {
      health: `median ${f(q(w.health, 0.5))} / p90 ${f(q(w.health, 0.9))} / max ${f(Math.max(...w.health))} ms (${w.health.length} polls)`,
      sends: count(w.results), sendMs: `median ${f(q(w.results.map((r) => r.ms), 0.5))} / max ${f(Math.max(...w.results.map((r) => r.ms)))}`,
      rss: `${f(rssBefore)} → peak ${f(w.peak)} → ${f(rss5)} MB 5 s after`,
    },
    over: {
      health: `median ${f(q(o.health, 0.5))} / p90 ${f(q(o.health, 0.9))} / max ${f(Math.max(...o.health))} ms (${o.health.length} polls)`,
      sends: count(o.results), sendMs: `median ${f(q(o.results.map((r) => r.ms), 0.5))} / max ${f(Math.max(...o.results.map((r) => r.ms)))}`,
      rss: `peak ${f(o.peak)} → ${f(rssOver5)} MB 5 s after → ${f(rss30)} MB 30 s after`,
    },
  };
}

console.log(`bodies: within ${(within.length / 1e6).toFixed(1)} MB × ${CONCURRENT}, over ${(over.length / 1e6).toFixed(1)} MB × ${OVER_CONCURRENT}; load ${load()}`);
// LIFTED=1 adds a third build per round: the after build with the buffered-body budget lifted
// (httpMaxBufferedBodyBytes 8 GiB), so every body is read and parsed, as in the before build.
const variants = [['before', beforeRoot, {}], ['after', afterRoot, {}]];
if (process.env.LIFTED) variants.push(['after, budget lifted', afterRoot, { MAILAGENT_HTTP_MAX_BUFFERED_BODY_BYTES: String(8 * 1024 ** 3) }]);
for (let k = 0; k < ROUNDS; k++) {
  for (const [name, root, env] of variants) {
    console.log(JSON.stringify(await round(name, root, env), null, 1));
  }
}
console.log(`load at the end ${load()}`);
