/**
 * Search (q) cost on a real SQLite file: GET /v1/messages/received with and without `q`, over N
 * received messages, through the app (inject: routing, validation, serialisation included).
 *
 * Baselines in the same run: the plain first page (no q), and a naive substring scan
 * (`subject LIKE '%word%' OR text LIKE '%word%'`) over the same rows, which is what search costs
 * without the FTS5 index. Also: main-thread CPU per inserted message with the index written in the
 * message's transaction (before migration 0027), with the message only queued for it (0027) plus
 * the cost of the batches that index the queue, and with no index trigger at all.
 *
 *   npx tsx bench/search.bench.ts [--quick]      (N=20000, or 4000 with --quick; N= to override)
 */
import { performance } from 'node:perf_hooks';
import { Migrator, sql } from 'kysely';
import { createTestApp } from '../test/helpers/app.js';
import { insertReceived, type ReceivedRow } from '../src/db/repos/received.js';
import { newId } from '../src/shared/ids.js';
import { isoAt } from '../src/shared/clock.js';
import { loadavg } from 'node:os';
import { migrate } from '../src/db/open.js';
import { migrations } from '../src/db/migrations/index.js';
import { catchUpSearchIndex } from '../src/db/search-index.js';

const quick = process.argv.includes('--quick');
const N = Number(process.env.N ?? (quick ? 4000 : 20000));
const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu invoice report meeting code'.split(' ');

function body(i: number): string {
  const w: string[] = [];
  for (let k = 0; k < 60; k++) w.push(WORDS[(i * 7 + k * 13) % WORDS.length]);
  if (i % 500 === 0) w.push('needleword');
  return w.join(' ');
}

function row(t: Awaited<ReturnType<typeof createTestApp>>, i: number): ReceivedRow {
  const text = body(i);
  return {
    id: newId('rcv', t.clock), workspace_id: t.boot.workspace.id, agent_id: t.boot.agent.id, thread_id: null, rfc_message_id: null,
    in_reply_to: null, references: [], from_address: `sender${i % 300}@example.com`, from_name: `Sender ${i % 300}`, from_domain: 'example.com',
    to: [t.boot.agent.email], cc: [], recipient: t.boot.agent.email, plus_address: null, subject: `Subject ${i} ${WORDS[i % WORDS.length]}`,
    text, html: null, extracted_text: text, excerpt: text.slice(0, 140), headers: [], size: text.length, spf_pass: true, dkim_pass: true,
    dmarc: 'pass', classification: { intent: 'fyi' }, quarantined: false, test_mode: false, over_limit: null, source: 'smtp',
    answers_message_id: null, event_id: null, event_type: null, remote_address: null, received_at: isoAt(t.clock.now()), read_at: null, extraction_truncated: false,
  };
}

async function timeIt(label: string, runs: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const med = times[Math.floor(times.length / 2)];
  console.log(`${label.padEnd(58)} median ${med.toFixed(2)} ms  p90 ${times[Math.floor(times.length * 0.9)].toFixed(2)} ms`);
  return med;
}

async function main() {
  console.log(`search bench: N=${N} received messages; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const t = await createTestApp();
  // Main-thread CPU (process.cpuUsage: no other thread runs here) per message, in transactions of
  // 16 rows (a group commit's size under a send load), for the ways the index can be kept.
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const insert = async (count: number, from: number) => {
    const c0 = cpu();
    for (let i = 0; i < count; i += 16) {
      await t.ctx.db.transaction().execute(async (tx) => {
        for (let k = i; k < Math.min(count, i + 16); k++) await insertReceived(tx, row(t, from + k), null);
      });
    }
    return cpu() - c0;
  };
  const perMessage = (label: string, ms: number, n: number) => console.log(`${label.padEnd(64)} ${((ms / n) * 1000).toFixed(1)} µs CPU`);
  // Now (migration 0027): the insert queues the message; batches of 256 index it (in the daemon on
  // the checkpointer's thread, here on the main connection).
  await insert(2000, 10 * N); // warm-up (JIT, page cache): not counted
  await catchUpSearchIndex(t.ctx.db);
  const queued = await insert(N, 0);
  const c0 = cpu();
  await catchUpSearchIndex(t.ctx.db);
  const batches = cpu() - c0;
  const sample = Math.min(N, 4000);
  // Before 0027: the FTS5 rows written by the INSERT's trigger, in the message's transaction.
  const migrator = new Migrator({ db: t.ctx.db, provider: { getMigrations: async () => migrations } });
  if ((await migrator.migrateTo('0026_table_versions')).error) throw new Error('migrating down to 0026 failed');
  const inTransaction = await insert(sample, N);
  // No index at all (the trigger dropped): the floor.
  const trigger = 'received_messages_search_insert';
  const saved = await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ${trigger}`.execute(t.ctx.db);
  await sql`DROP TRIGGER ${sql.raw(trigger)}`.execute(t.ctx.db);
  const without = await insert(sample, N + sample);
  await sql.raw(saved.rows[0].sql).execute(t.ctx.db);
  await migrate(t.ctx.db);
  perMessage(`insert, index written in the transaction (before 0027; ${sample} rows)`, inTransaction, sample);
  perMessage(`insert, message queued for the index (0027; N rows)`, queued, N);
  perMessage('  + indexing the queue in batches of 256 (off the main thread in the daemon)', batches, N);
  perMessage('insert, no index trigger at all (baseline)', without, sample);

  const get = (q?: string) => t.app.inject({ method: 'GET', url: `/v1/messages/received${q ? `?q=${encodeURIComponent(q)}` : ''}`, headers: { authorization: `Bearer ${t.liveKey}` } });
  const runs = quick ? 15 : 40;
  await timeIt('GET received, first page, no q (baseline)', runs, () => get());
  await timeIt(`GET q=needleword (${Math.ceil(N / 500)} hits)`, runs, () => get('needleword'));
  await timeIt('GET q=invoice (a common word, ~all rows)', runs, () => get('invoice'));
  await timeIt('GET q=from:sender7 subject:alpha', runs, () => get('from:sender7 subject:alpha'));
  await timeIt('GET q=needleword has:attachment is:unread', runs, () => get('needleword -has:attachment is:unread'));
  await timeIt('naive LIKE scan for needleword (baseline, no index)', runs, () =>
    t.ctx.db.selectFrom('received_messages').select('id').where('workspace_id', '=', t.boot.workspace.id)
      .where((eb) => eb.or([eb('subject', 'like', '%needleword%'), eb('text', 'like', '%needleword%')])).orderBy('id', 'desc').limit(26).execute());
  await t.close();
  console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
}

void main();
