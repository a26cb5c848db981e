/**
 * Counts SQL statements (and commits) per operation on a real daemon: GET /v1/me, a test-mode
 * send, a live send through a local relay, one inbound message over /v1/test/inbound... and SMTP.
 * Run: npx tsx bench/tools/sql-count.ts [--verbose]
 */
import { observeStatements } from './statement-hook.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/server/config.js';
import { Daemon } from '../../src/server/daemon.js';
import { TestRelay } from '../../test/helpers/relay.js';
import { SmtpPipe } from '../../test/integration/inbound/smtp-client.js';
import { createWebhook } from '../../src/services/webhooks.js';
import { startSink } from '../../test/helpers/sink.js';

const VERBOSE = process.argv.includes('--verbose');
let log: string[] = [];
observeStatements({ ran: (source) => log.push(source) });

async function measure(name: string, fn: () => Promise<unknown>, settleMs = 400): Promise<void> {
  await new Promise((r) => setTimeout(r, settleMs));
  log = [];
  await fn();
  await new Promise((r) => setTimeout(r, settleMs)); // after-commit work, request-log flush, workers
  const commits = log.filter((s) => /^commit$/i.test(s.trim())).length;
  console.log(`${name.padEnd(44)} ${String(log.length).padStart(4)} statements, ${commits} commits`);
  if (VERBOSE) for (const s of log) console.log('     ', s.replace(/\s+/g, ' ').slice(0, 160));
}

const dir = mkdtempSync(join(tmpdir(), 'mailagent-sqlcount-'));
const relay = await TestRelay.start();
const sink = await startSink();
const d = await Daemon.create(loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent', relay: relay.url, allowPrivateWebhooks: true }, {}), { quiet: true });
const { http: base, smtp } = await d.start();
const keys = d.bootstrapped!.keys;
await d.ctx.db.updateTable('workspaces').set({ tier: 'scale', created_at: '2020-01-01T00:00:00.000Z' }).execute();
const auth = { keyId: 'x', workspaceId: d.bootstrapped!.workspace.id, mode: 'live' as const, scopes: ['manage' as const], agentId: null, expiresAt: null };
await createWebhook(d.ctx, auth, { url: sink.url, event_types: ['*'] });
const call = async (method: string, path: string, key: string, body?: unknown) => {
  const r = await fetch(base + path, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const t = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${t}`);
  return t;
};
const msg = { to: 'bob@example.com', subject: 'Your receipt', body_text: 'Thanks for your order #1234.' };
await call('GET', '/v1/me', keys.test.key);
await call('POST', '/v1/messages', keys.test.key, msg);
await call('POST', '/v1/messages', keys.live.key, msg);
await measure('GET /v1/me', () => call('GET', '/v1/me', keys.test.key));
await measure('POST /v1/messages (test key)', () => call('POST', '/v1/messages', keys.test.key, msg));
await measure('POST /v1/messages (live key → relay)', () => call('POST', '/v1/messages', keys.live.key, msg));
const port = Number(smtp!.split(':').pop());
const raw = (i: number) => Buffer.from(`From: a${i}@bench.test\r\nTo: agent@local.mailagent.localhost\r\nSubject: hi ${i}\r\nMessage-ID: <m${i}@bench.test>\r\n\r\nhello there\r\n`);
const pipe = await SmtpPipe.open(port);
await pipe.send('a0@bench.test', ['agent@local.mailagent.localhost'], raw(0));
await measure('SMTP inbound message (+ webhook delivery)', () => pipe.send('a1@bench.test', ['agent@local.mailagent.localhost'], raw(1)), 600);
await pipe.quit();
await d.stop();
await relay.stop();
await sink.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
