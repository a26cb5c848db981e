// Where the main thread allocates under load: a daemon of a given build (dist/) in this process,
// with the serve command's heap settings, V8's sampling heap profiler on (objects collected by
// scavenges and full GCs included: what a request allocates, not what it keeps), and wrk
// (-t2 -c16) on GET /v1/me or a test-mode send. Prints bytes allocated per request and the top
// allocation sites by self size; writes the .heapprofile (Chrome DevTools) if asked.
//   node bench/tools/alloc-sites.mjs <dist dir> <me|send> [seconds] [out.heapprofile]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dist, mode = 'me', secs = '8', out] = process.argv.slice(2);
const mod = (p) => import(pathToFileURL(join(resolve(dist), p)).href);
(await mod('server/memory.js')).applyDaemonHeapSettings();
const { loadConfig } = await mod('server/config.js');
const { Daemon } = await mod('server/daemon.js');
const home = mkdtempSync(join(tmpdir(), 'mailagent-alloc-'));
const config = loadConfig({ dataDir: join(home, 'data'), port: 0, smtpPort: 0, logLevel: 'silent' }, {});
const d = await Daemon.create(config, { quiet: true });
const addr = await d.start();
const key = d.bootstrapped.keys.test.key;
await d.ctx.db.updateTable('workspaces').set({ tier: 'scale', created_at: '2020-01-01T00:00:00.000Z' }).execute();
const lua = join(home, 'send.lua');
writeFileSync(lua, `wrk.method = "POST"\nwrk.body = '{"to":"bob@example.com","subject":"Your receipt","body_text":"Thanks for your order #1234."}'\nwrk.headers["Content-Type"] = "application/json"\n`);
const base = addr.http.startsWith('http') ? addr.http : `http://${addr.http}`;
const wrk = (s) => new Promise((res) => {
  // wrk in a child process, asynchronously: this process serves the requests meanwhile.
  import('node:child_process').then(({ execFile }) => execFile('wrk', ['-t2', '-c16', `-d${s}s`, '-H', `Authorization: Bearer ${key}`,
    ...(mode === 'send' ? ['-s', lua, `${base}/v1/messages`] : [`${base}/v1/me`])], (err, stdout) => res(Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0))));
});
await wrk(4); // warm-up: JIT, caches
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
const n = await wrk(Number(secs));
const { profile } = await session.post('HeapProfiler.stopSampling');
if (out) writeFileSync(out, JSON.stringify(profile));
const sites = new Map();
let total = 0;
(function walk(node, stack) {
  const cf = node.callFrame;
  const here = `${cf.functionName || '(anon)'} ${cf.url.replace(/^file:\/\//, '').replace(/.*node_modules\//, 'nm:').replace(/.*\/dist\//, 'dist/')}:${cf.lineNumber + 1}`;
  total += node.selfSize;
  if (node.selfSize) sites.set(here, (sites.get(here) ?? 0) + node.selfSize);
  for (const c of node.children) walk(c, stack);
})(profile.head, []);
console.log(`${mode}: ${n} requests in ${secs} s; sampled ${(total / 1048576).toFixed(1)} MB allocated on the main thread, ${(total / n).toFixed(0)} bytes per request`);
for (const [k, v] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 30))) console.log(`${(v / n).toFixed(0).padStart(7)} B/req  ${k}`);
await d.stop();
rmSync(home, { recursive: true, force: true });
spawnSync('true');
