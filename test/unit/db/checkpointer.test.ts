import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase, checkpointOffThread, runTransaction, tableMark, type OpenedDb } from '../../../src/db/open.js';

// db/checkpointer.ts: the daemon's WAL checkpoints run on a worker thread's connection, not inside
// the main connection's COMMITs.
const dirs: string[] = [];
const opened: OpenedDb[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(): { o: OpenedDb; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-ckpt-'));
  dirs.push(dir);
  const file = join(dir, 'db.sqlite');
  const o = openDatabase(file);
  opened.push(o);
  return { o, file };
}

const autoCheckpoint = async (o: OpenedDb) => Number((await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(o.db)).rows[0].wal_autocheckpoint);

async function writeRows(o: OpenedDb, n: number): Promise<void> {
  await sql`create table if not exists t (id integer primary key, v blob)`.execute(o.db);
  for (let i = 0; i < n; i += 100) {
    await runTransaction(o.db, async (trx) => {
      for (let j = i; j < i + 100; j++) await sql`insert into t (v) values (${Buffer.alloc(1024, j % 251)})`.execute(trx);
    }, 'off-thread');
  }
}

describe('checkpointOffThread', () => {
  it('turns off checkpoints inside the main connection\'s commits, and the thread copies the WAL into the database file', async () => {
    const { o, file } = open();
    expect(await autoCheckpoint(o)).toBe(1000);
    checkpointOffThread(o);
    // Off once the thread is up.
    const up = Date.now() + 10_000;
    while ((await autoCheckpoint(o)) !== 0 && Date.now() < up) await new Promise((r) => setTimeout(r, 20));
    expect(await autoCheckpoint(o)).toBe(0);
    const before = statSync(file).size;
    await writeRows(o, 3000); // ~3 MB: past the 1,000-page automatic checkpoint
    // The database file grows only when a checkpoint copies pages into it: with none on the main
    // connection, that is the thread's work.
    const deadline = Date.now() + 10_000;
    while (statSync(file).size < before + 2_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(statSync(file).size).toBeGreaterThan(before + 2_000_000);
    // Every row is there for another connection.
    const other = new Database(file, { readonly: true });
    expect(other.prepare('select count(*) as n from t').get()).toEqual({ n: 3000 });
    other.close();
  });

  it('also checkpoints what another connection wrote (the inbound queue\'s writer thread never checkpoints itself)', async () => {
    const { o, file } = open();
    checkpointOffThread(o);
    const up = Date.now() + 10_000;
    while ((await autoCheckpoint(o)) !== 0 && Date.now() < up) await new Promise((r) => setTimeout(r, 20));
    // Like db/queue-writer-thread.ts: its own connection, no automatic checkpoints; the main
    // connection writes nothing meanwhile, so its write counter never moves.
    const writer = new Database(file);
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('create table w (id integer primary key, v blob)');
    const before = statSync(file).size;
    const ins = writer.prepare('insert into w (v) values (?)');
    writer.transaction(() => { for (let i = 0; i < 3000; i++) ins.run(Buffer.alloc(1024, i % 251)); })();
    writer.close();
    const deadline = Date.now() + 10_000;
    while (statSync(file).size < before + 2_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(statSync(file).size).toBeGreaterThan(before + 2_000_000);
  });

  it('without it (tests, admin commands) the main connection keeps checkpointing by itself', async () => {
    const { o, file } = open();
    const before = statSync(file).size;
    await writeRows(o, 3000);
    expect(await autoCheckpoint(o)).toBe(1000);
    expect(statSync(file).size).toBeGreaterThan(before + 2_000_000);
  });

  it('in-memory databases are left alone', async () => {
    const o = openDatabase(':memory:');
    opened.push(o);
    checkpointOffThread(o);
    expect(tableMark(o.db, ['t'])).not.toBeNull();
  });
});
