import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Db } from '../../../src/db/schema.js';
import { migrate, openDatabase, type OpenedDb } from '../../../src/db/open.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { down as down0035 } from '../../../src/db/migrations/0035_sent_attachment_blobs.js';
import { testDatabase, type TestDatabase } from '../../helpers/db.js';
import {
  deleteSentAttachmentBlobs, listAttachments, sentAttachmentBlobId, sentAttachmentDownload, writeSentAttachmentBlobs, type AttachmentRow,
} from '../../../src/db/repos/messages.js';
import { writeBlob, type StoredBytesStream } from '../../../src/db/repos/blobs.js';

// Migration 0035 (issue #13): a sent attachment's bytes may be a blob (`content_blob`, pieces in
// blob_chunks) instead of the row's `content`. An upgrade leaves the rows stored before it as they
// are, and they read as before (the attachment download, the MIME builds' listAttachments); rows
// stored after it read the same from their pieces; rolling the migration back joins the pieces
// into `content` again. SQLite file and PostgreSQL
// (`npx tsx scripts/test-postgres.ts test/unit/db/sent-attachment-blobs.test.ts`).
let dir: string;
let store: TestDatabase;
let opened: OpenedDb;
let db: Db;
const before0035 = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0035'));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-sentblob-'));
  store = await testDatabase(dir, { unmigrated: true });
  opened = openDatabase(store.spec);
  db = opened.db;
});
afterAll(async () => {
  await opened.close();
  await store.drop();
  rmSync(dir, { recursive: true, force: true });
});

const OLD_BIG = randomBytes(700_000);
const OLD_SMALL = Buffer.from('hello');
const NEW_BIG = randomBytes(900_000);

async function bytesOf(d: Buffer | StoredBytesStream): Promise<Buffer> {
  if (Buffer.isBuffer(d)) return d;
  const parts: Buffer[] = [];
  for await (const p of d) parts.push(p as Buffer);
  return Buffer.concat(parts);
}
const pieces = async () => Number((await db.selectFrom('blob_chunks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

describe('migration 0035: sent attachments as blobs', () => {
  it('an upgrade keeps inline attachments readable; new rows read from their pieces', async () => {
    await migrate(db, before0035);
    // As the old store wrote them: the bytes in the row (no content_blob column yet).
    const legacy = db as unknown as import('kysely').Kysely<{ sent_attachments: Record<string, unknown> }>;
    await legacy.insertInto('sent_attachments').values([
      { id: 'att_old1', message_id: 'msg_old', position: 0, filename: 'big.bin', content_type: 'application/octet-stream', size: OLD_BIG.length, content: OLD_BIG },
      { id: 'att_old2', message_id: 'msg_old', position: 1, filename: 'a.txt', content_type: 'text/plain', size: OLD_SMALL.length, content: OLD_SMALL },
    ]).execute();
    // 0035 and any later migration.
    expect(await migrate(db)).toEqual(Object.keys(migrations).filter((name) => name >= '0035'));

    const old = await listAttachments(db, 'msg_old');
    expect(old.map((a) => [a.id, a.content_blob ?? null, a.content.equals(a.id === 'att_old1' ? OLD_BIG : OLD_SMALL)])).toEqual([
      ['att_old1', null, true], ['att_old2', null, true],
    ]);
    const d = await sentAttachmentDownload(db, 'msg_old', 'att_old1');
    expect(d && (await bytesOf(d.download)).equals(OLD_BIG)).toBe(true);
    expect(await sentAttachmentDownload(db, 'msg_other', 'att_old1')).toBeUndefined();

    // A new row: its bytes written first (as the queue writer does), the row naming them.
    const rows: AttachmentRow[] = [{ id: 'att_new1', message_id: 'msg_new', position: 0, filename: 'n.bin', content_type: 'application/octet-stream', size: NEW_BIG.length, content: NEW_BIG }];
    const written = await writeSentAttachmentBlobs(rows, async (blobs) => {
      for (const b of blobs) await writeBlob(db, b.id, b.data);
    }, false);
    expect(written).toEqual([sentAttachmentBlobId('att_new1')]);
    expect(rows[0].content.length).toBe(0);
    await db.insertInto('sent_attachments').values(rows).execute();
    const fresh = await listAttachments(db, 'msg_new');
    expect(fresh[0].content.equals(NEW_BIG)).toBe(true);
    const nd = await sentAttachmentDownload(db, 'msg_new', 'att_new1');
    expect(nd && !Buffer.isBuffer(nd.download)).toBe(true);
    expect((await bytesOf(nd!.download)).equals(NEW_BIG)).toBe(true);
    expect(await pieces()).toBe(Math.ceil(NEW_BIG.length / (256 * 1024)));
  });

  it('rolled back, the pieces are joined into the row again; up again, everything reads', async () => {
    await db.transaction().execute((trx) => down0035(trx as never));
    const back = db as unknown as import('kysely').Kysely<{ sent_attachments: { id: string; content: Buffer } }>;
    const rows = await back.selectFrom('sent_attachments').select(['id', 'content']).orderBy('id').execute();
    expect(rows.map((r) => [r.id, Buffer.from(r.content).length])).toEqual([['att_new1', NEW_BIG.length], ['att_old1', OLD_BIG.length], ['att_old2', OLD_SMALL.length]]);
    expect(Buffer.from(rows[0].content).equals(NEW_BIG)).toBe(true);
    expect(await pieces()).toBe(0);
    await db.deleteFrom('kysely_migration' as never).where('name' as never, '=', '0035_sent_attachment_blobs' as never).execute();
    expect(await migrate(db)).toEqual(['0035_sent_attachment_blobs']);
    expect((await listAttachments(db, 'msg_new'))[0].content.equals(NEW_BIG)).toBe(true);
  });

  it('deleting a message\'s attachment blobs leaves the inline rows alone; a download of deleted pieces is undefined', async () => {
    const rows: AttachmentRow[] = [{ id: 'att_new2', message_id: 'msg_new2', position: 0, filename: 'n.bin', content_type: 'application/octet-stream', size: NEW_BIG.length, content: NEW_BIG }];
    await writeSentAttachmentBlobs(rows, async (blobs) => {
      for (const b of blobs) await writeBlob(db, b.id, b.data);
    }, false);
    await db.insertInto('sent_attachments').values(rows).execute();
    expect(await pieces()).toBeGreaterThan(0);
    await deleteSentAttachmentBlobs(db, ['msg_new2', 'msg_old']);
    expect(await pieces()).toBe(0);
    expect(await sentAttachmentDownload(db, 'msg_new2', 'att_new2')).toBeUndefined();
    expect((await listAttachments(db, 'msg_old'))[0].content.equals(OLD_BIG)).toBe(true);
  });
});
