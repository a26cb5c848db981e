import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startDaemon, isolatedEnv, type TestDaemon } from '../../helpers/daemon.js';
import { SmtpPipe } from '../inbound/smtp-client.js';
import { rawMessage } from './helpers.js';
import { onPostgres } from '../../helpers/db.js';

const cleanup: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const smtpPortOf = (d: TestDaemon) => Number(/SMTP \S+:(\d+)/.exec(d.stderr())![1]);

describe('mailagent backup / restore', () => {
  it('backs up a running daemon under SMTP load; the restored copy, served by a new daemon, has every message acknowledged before the backup started', async (ctx) => {
    ctx.skip(onPostgres, 'SQLite only: `mailagent backup` copies the SQLite file (PostgreSQL: pg_dump, see the refusal test below)');
    const d = await startDaemon();
    cleanup.push(() => d.stop());
    const agent = (await d.api('GET', '/v1/agents', undefined, d.liveKey)).data[0].email as string;
    const port = smtpPortOf(d);
    const acked: { id: string; at: number }[] = [];
    let stopping = false;
    const senders = [0, 1, 2].map(async (c) => {
      const pipe = await SmtpPipe.open(port);
      for (let i = 0; !stopping; i++) {
        const r = await pipe.send('alice@example.com', [agent], rawMessage({ to: agent, subject: `backup ${c}-${i}` }));
        expect(r).toMatch(/^250/);
        acked.push({ id: /stored as (\S+)/.exec(r)![1], at: performance.now() });
      }
      await pipe.quit();
    });
    while (acked.length < 30) await new Promise((r) => setTimeout(r, 50));

    const out = mkdtempSync(join(tmpdir(), 'mailagent-backup-'));
    cleanup.push(() => rmSync(out, { recursive: true, force: true }));
    const file = join(out, 'copy.db');
    const started = performance.now();
    const before = acked.filter((a) => a.at < started).map((a) => a.id);
    const b = await d.cli(['backup', file, '--data-dir', d.dataDir, '--json'], { timeoutMs: 60_000 });
    expect(b.code, b.stderr).toBe(0);
    expect(b.json()).toMatchObject({ file, check: 'ok' });
    await new Promise((r) => setTimeout(r, 200)); // mail kept flowing during and after the backup
    stopping = true;
    await Promise.all(senders);
    expect(acked.length).toBeGreaterThan(before.length);

    // Restoring over the running daemon's data dir is refused.
    const busy = await d.cli(['restore', file, '--data-dir', d.dataDir, '--yes']);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/is in use/);
    expect(busy.stderr).toContain(`mailagent PID ${d.child.pid} (API ${d.url}) is running on ${d.dataDir}`);

    // Restore into a new dir and serve it.
    const home2 = mkdtempSync(join(tmpdir(), 'mailagent-restore-'));
    cleanup.push(() => rmSync(home2, { recursive: true, force: true }));
    const dir2 = join(home2, 'data');
    const r = await runCli(['restore', file, '--data-dir', dir2, '--json'], { env: isolatedEnv(home2) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().replaced).toBe(false);
    const d2 = await startDaemon({ dataDir: dir2 });
    cleanup.push(() => d2.stop());
    for (const id of before) {
      const res = await fetch(`${d2.url}/v1/messages/received/${id}`, { headers: { authorization: `Bearer ${d.liveKey}` } });
      expect(res.status, id).toBe(200);
    }
    // An existing database is replaced only with --yes (stdin is not a terminal here).
    await d2.stop({ keep: true });
    const again = await runCli(['restore', file, '--data-dir', dir2], { env: isolatedEnv(home2) });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/--yes/);
  }, 120_000);

  it('refuses what is not a mailagent backup, and a missing source', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mailagent-restore-'));
    cleanup.push(() => rmSync(home, { recursive: true, force: true }));
    const junk = join(home, 'junk.db');
    writeFileSync(junk, 'not a database at all, just text'.repeat(100));
    const r = await runCli(['restore', junk, '--data-dir', join(home, 'd')], { env: isolatedEnv(home) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not an SQLite database|not a mailagent database|damaged/);
    expect(existsSync(join(home, 'd', 'mailagent.db'))).toBe(false);
    const b = await runCli(['backup', join(home, 'x.db'), '--data-dir', join(home, 'nothing')], { env: isolatedEnv(home) });
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(/does not exist/);
  });

  it('on a PostgreSQL config, backup and restore refuse and name pg_dump / pg_restore (nothing is written)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mailagent-pgbackup-'));
    cleanup.push(() => rmSync(home, { recursive: true, force: true }));
    // Never connected to: the refusal comes from the configuration alone.
    const env = isolatedEnv(home, { MAILAGENT_DATABASE_URL: 'postgres://mailagent@127.0.0.1:1/mailagent' });
    const b = await runCli(['backup', join(home, 'x.db'), '--data-dir', join(home, 'd')], { env });
    expect(b.code, b.stderr).toBe(1);
    expect(b.stderr).toMatch(/uses PostgreSQL.*pg_dump --format=custom/s);
    expect(existsSync(join(home, 'x.db'))).toBe(false);
    writeFileSync(join(home, 'some.db'), 'x');
    const r = await runCli(['restore', join(home, 'some.db'), '--data-dir', join(home, 'd'), '--yes'], { env });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/uses PostgreSQL.*pg_restore/s);
    expect(existsSync(join(home, 'd', 'mailagent.db'))).toBe(false);
  });
});
