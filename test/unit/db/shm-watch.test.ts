import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { openDatabase, tableMark, type OpenedDb } from '../../../src/db/open.js';
import { watchedShmFiles } from '../../../src/db/shm-watch.js';

// db/shm-watch.ts: tableMark reads data_version only when the WAL-index header moved; every
// commit by another connection or process must still move the mark, and the -shm descriptor must
// never be closed while a connection of this process may hold locks through the file.
const dirs: string[] = [];
const opened: OpenedDb[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function open(file?: string): Promise<{ o: OpenedDb; file: string }> {
  if (!file) {
    const dir = mkdtempSync(join(tmpdir(), 'mailagent-shm-'));
    dirs.push(dir);
    file = join(dir, 'db.sqlite');
  }
  const o = openDatabase(file);
  opened.push(o);
  await sql`create table if not exists t (id integer primary key, v text)`.execute(o.db);
  return { o, file };
}
const T = ['t'];
/** tableMark takes one look at other connections' commits per event-loop turn (db/open.ts OtherConnections). */
const nextTurn = () => new Promise((r) => setImmediate(r));

describe('tableMark with the WAL-index header as first look (db/shm-watch.ts)', () => {
  it('holds still while nothing is committed; moves on a commit by another connection of this process', async () => {
    const { o, file } = await open();
    const m0 = tableMark(o.db, T);
    expect(tableMark(o.db, T)).toBe(m0);
    const other = new Database(file);
    other.prepare("insert into t (v) values ('x')").run();
    // The turn's look was taken: the commit is seen from the next turn on.
    expect(tableMark(o.db, T)).toBe(m0);
    await nextTurn();
    expect(tableMark(o.db, T)).not.toBe(m0);
    const m1 = tableMark(o.db, T);
    // A write to another table by another connection moves it too: `t` keeps no version (see below).
    other.exec('create table u (x)');
    await nextTurn();
    expect(tableMark(o.db, T)).not.toBe(m1);
    other.close();
  });

  it('moves on a commit by another process', async () => {
    const { o, file } = await open();
    const m0 = tableMark(o.db, T);
    const r = spawnSync(process.execPath, ['-e', `const D = require('better-sqlite3'); const d = new D(${JSON.stringify(file)}); d.prepare("insert into t (v) values ('y')").run(); d.close();`], { cwd: process.cwd(), encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    await nextTurn();
    expect(tableMark(o.db, T)).not.toBe(m0);
  });

  it('after this connection writes, the next look reads data_version again and settles', async () => {
    const { o } = await open();
    const m0 = tableMark(o.db, T);
    await sql`insert into t (v) values ('z')`.execute(o.db);
    const m1 = tableMark(o.db, T);
    expect(m1).not.toBe(m0); // the table's own write counter
    expect(tableMark(o.db, T)).toBe(m1);
  });

  it('keeps the -shm descriptor while another connection of this process uses the file; drops it once the file is gone; a new file is watched anew', async () => {
    const { o, file } = await open();
    tableMark(o.db, T);
    const shm = `${file}-shm`;
    expect(watchedShmFiles()).toContain(shm);
    const other = new Database(file);
    other.prepare('select count(*) from t').get();
    await o.close();
    opened.splice(opened.indexOf(o), 1);
    expect(watchedShmFiles()).toContain(shm); // closing it would drop `other`'s POSIX locks
    other.close(); // the last connection: SQLite deletes -wal and -shm

    const again = await open(file);
    const m0 = tableMark(again.o.db, T);
    const third = new Database(file);
    third.prepare("insert into t (v) values ('w')").run();
    third.close();
    await nextTurn();
    expect(tableMark(again.o.db, T)).not.toBe(m0); // read through the new file, not the deleted one
    await again.o.close();
    opened.splice(opened.indexOf(again.o), 1);
    expect(watchedShmFiles()).not.toContain(shm);
  });

  it('a table with a version (migration 0026) moves only when some connection writes that table', async () => {
    const { o, file } = await open();
    // As migration 0026 sets it up for the cached tables.
    await sql`create table table_versions (table_name text primary key, version integer not null default 0)`.execute(o.db);
    await sql`insert into table_versions (table_name) values ('t')`.execute(o.db);
    await sql.raw(`create trigger tv_t after insert on t begin update table_versions set version = version + 1 where table_name = 't'; end`).execute(o.db);
    const other = new Database(file);
    other.exec('create table elsewhere (x); insert into elsewhere values (1)');
    await nextTurn();
    const m0 = tableMark(o.db, T);
    expect(m0).toMatch(/^v\./);
    // Another connection commits to other tables (as the queue writer does all day): no move.
    for (let i = 0; i < 3; i++) {
      other.prepare('insert into elsewhere values (?)').run(i);
      await nextTurn();
      expect(tableMark(o.db, T)).toBe(m0);
    }
    // Another connection writes `t`: the trigger counts it, the next turn sees it.
    other.prepare("insert into t (v) values ('a')").run();
    await nextTurn();
    const m1 = tableMark(o.db, T);
    expect(m1).not.toBe(m0);
    // This connection's own write moves it at once (its write counter), as before.
    await sql`insert into t (v) values ('b')`.execute(o.db);
    expect(tableMark(o.db, T)).not.toBe(m1);
    other.close();
  });
});
