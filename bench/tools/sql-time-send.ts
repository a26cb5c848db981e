/**
 * Time per SQL statement text (main-thread time: better-sqlite3 is synchronous; COMMIT includes
 * the fsync) while 16 concurrent clients send test-mode messages / GET /v1/me to an in-process daemon.
 * Run: npx tsx bench/tools/sql-time-send.ts [send|me] [seconds]
 */
import { observeStatements, StatementTimes } from './statement-hook.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { loadConfig } from '../../src/server/config.js';
import { Daemon } from '../../src/server/daemon.js';

const what = process.argv[2] ?? 'send';
const secs = Number(process.argv[3] ?? 5);
const times = new StatementTimes();
const stats = times.stats;
let on = false;
observeStatements({
  ran: (source, ms) => {
    if (on) times.add(source.replace(/\s+/g, ' ').replace(/\(\?(, \?)+\)(, \(\?(, \?)+\))+/g, '(?…) × n').slice(0, 150), ms);
  },
});

const dir = mkdtempSync(join(tmpdir(), 'mailagent-sqltime-'));
const d = await Daemon.create(loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent' }, {}), { quiet: true });
const { http: base } = await d.start();
const key = d.bootstrapped!.keys.test.key;
await d.ctx.db.updateTable('workspaces').set({ tier: 'scale', created_at: '2020-01-01T00:00:00.000Z' }).execute();
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const body = JSON.stringify({ to: 'bob@example.com', subject: 'Your receipt', body_text: 'Thanks for your order #1234.' });
const url = new URL(base + (what === 'me' ? '/v1/me' : '/v1/messages'));
let n = 0;
const one = () => new Promise<void>((res, rej) => {
  const r = http.request(url, { agent, method: what === 'me' ? 'GET' : 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } }, (resp) => {
    resp.resume();
    resp.on('end', () => (resp.statusCode! < 300 ? res() : rej(new Error(String(resp.statusCode)))));
  });
  r.on('error', rej);
  r.end(what === 'me' ? undefined : body);
});
on = true;
const t0 = performance.now();
const end = Date.now() + secs * 1000;
await Promise.all(Array.from({ length: 16 }, async () => {
  while (Date.now() < end) {
    await one();
    n++;
  }
}));
const wall = performance.now() - t0;
on = false;
let total = 0;
for (const s of stats.values()) total += s.ms;
console.log(`${n} requests in ${(wall / 1000).toFixed(1)} s (${(n / (wall / 1000)).toFixed(0)}/s); SQL ${total.toFixed(0)} ms = ${(total / n * 1000).toFixed(0)} µs/request`);
for (const [k, s] of [...stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, 30)) {
  console.log(`${(s.ms / n * 1000).toFixed(1).padStart(7)} µs/req ${(s.n / n).toFixed(2).padStart(6)}×/req ${(s.ms / s.n * 1000).toFixed(0).padStart(6)} µs each  ${k}`);
}
agent.destroy();
await d.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
