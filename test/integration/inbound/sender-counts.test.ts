import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { runTransaction } from '../../../src/db/open.js';
import { HISTORY_CAP, senderCounts } from '../../../src/db/repos/received.js';
import { deleteMessages } from '../../../src/db/repos/retention.js';
import { deliver } from '../selfhost/helpers.js';
import { observeStatements } from '../../../bench/tools/statement-hook.js';
import { dialectOf } from '../../../src/db/dialect.js';

// The classifier's sender history counts stop at HISTORY_CAP; a count at the cap is not read again
// (src/db/repos/received.ts) until received messages are deleted, which can lower it.
let t: TestApp;
/** Statements run (SQLite; the hook patches better-sqlite3 at its next prepare, so it is set before any). */
const seen: string[] = [];
observeStatements({ ran: (sql) => seen.push(sql) });
beforeEach(async () => { t = await createTestApp(); });
afterEach(async () => { await t.close(); });

/** `n` more stored messages from alice@example.com (copies of a delivered one). */
async function seed(n: number): Promise<string[]> {
  const id = await deliver(t.ctx, t.boot.agent.email, 'seed');
  const row = await t.ctx.db.selectFrom('received_messages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const ids = Array.from({ length: n }, (_, i) => `${id}x${i}`);
  await runTransaction(t.ctx.db, async (trx) => {
    for (let i = 0; i < ids.length; i += 100) {
      await trx.insertInto('received_messages').values(ids.slice(i, i + 100).map((cid) => ({ ...row, id: cid, event_id: null, raw_blob: null }))).execute();
    }
  });
  return [id, ...ids];
}

describe('sender history counts', () => {
  it('a count at its cap stays right when messages are deleted (the remembered cap is forgotten)', async () => {
    const ws = t.boot.workspace.id;
    const ids = await seed(HISTORY_CAP + 4); // HISTORY_CAP + 5 from the sender in all
    expect((await senderCounts(t.ctx.db, ws, 'alice@example.com', 'example.com')).fromSender).toBe(HISTORY_CAP);
    expect((await senderCounts(t.ctx.db, ws, 'alice@example.com', 'example.com')).fromDomain).toBe(HISTORY_CAP);
    await runTransaction(t.ctx.db, (trx) => deleteMessages(trx, ids.slice(0, 10), [], new Date().toISOString()));
    const after = await senderCounts(t.ctx.db, ws, 'alice@example.com', 'example.com');
    expect(after.fromSender).toBe(HISTORY_CAP - 5);
    expect(after.fromDomain).toBe(HISTORY_CAP - 5);
    // Another workspace's sender of the same address is counted on its own.
    expect((await senderCounts(t.ctx.db, 'ws_other', 'alice@example.com', 'example.com')).fromSender).toBe(0);
  }, 60_000);

  it('replies are counted among the sender\'s messages; a first message from an address does not look for them', async () => {
    const ws = t.boot.workspace.id;
    const ids = await seed(3);
    await t.ctx.db.updateTable('received_messages').set({ answers_message_id: 'msg_ours' }).where('id', 'in', ids.slice(0, 2)).execute();
    expect(await senderCounts(t.ctx.db, ws, 'alice@example.com', 'example.com')).toEqual({ fromSender: 4, fromDomain: 4, repliesFromSender: 2 });
    seen.length = 0;
    expect(await senderCounts(t.ctx.db, ws, 'new@example.com', 'example.com')).toEqual({ fromSender: 0, fromDomain: 4, repliesFromSender: 0 });
    // SQLite: the hook sees better-sqlite3's statements (sender and domain counts, no replies count).
    if (dialectOf(t.ctx.db) === 'sqlite') expect(seen.filter((q) => /received_messages/.test(q))).toHaveLength(2);
  });
});
