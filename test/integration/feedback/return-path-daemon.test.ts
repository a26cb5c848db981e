import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isolatedEnv, runCli, startDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { onPostgres } from '../../helpers/db.js';
import { TestRelay } from '../../helpers/relay.js';
import { transport } from '../inbound/helpers.js';
import { fixture } from './helpers.js';

/**
 * The whole thing through `mailagent serve`: live mail goes out through a real SMTP relay with a
 * signed return path per copy; a DSN mailed over SMTP to that return path suppresses its
 * recipient — after a restart too (the key is in the database) and, on SQLite, in a daemon
 * serving a restored backup — while the same DSN forged to the agent's address changes nothing.
 */
const cleanup: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const smtpPortOf = (d: TestDaemon) => Number(/SMTP \S+:(\d+)/.exec(d.stderr())![1]);
const suppressed = async (d: TestDaemon, address: string) => (await d.api('GET', `/v1/suppression?address=${encodeURIComponent(address)}`, undefined, d.liveKey)).suppressed as boolean;

async function mail(d: TestDaemon, raw: Buffer, rcpt: string): Promise<string> {
  return (await transport(smtpPortOf(d)).sendMail({ envelope: { from: '', to: [rcpt] }, raw })).response;
}

describe('signed return paths through the daemon', () => {
  it('envelope sender per copy; a DSN at it suppresses after a restart (and from a restored backup); forged to the agent it does not', async () => {
    const relay = await TestRelay.start();
    cleanup.push(() => relay.stop());
    const d = await startDaemon({ args: ['--relay', relay.url] });
    cleanup.push(() => d.stop());
    const agent = (await d.api('GET', '/v1/agents', undefined, d.liveKey)).data[0].email as string;
    const domain = agent.split('@')[1];
    const sent = await d.api('POST', '/v1/messages', { agent: 'agent', to: ['gone@example.org', 'kept@example.org'], subject: 'Order 1042', body_text: 'Hi, could you confirm the delivery address for order 1042?' }, d.liveKey);
    const rfcId = `${sent.id}@${domain}`;
    expect(relay.messages).toHaveLength(2);
    const pathOf = (rcpt: string) => relay.messages.find((m) => m.rcptTo.includes(rcpt))!.mailFrom;
    for (const m of relay.messages) {
      expect(m.mailFrom).toMatch(new RegExp(`^bounces\\+[0-9a-z]{47}@${domain.replaceAll('.', '\\.')}$`));
      expect(m.raw.toString()).toMatch(new RegExp(`^From: ${agent}\\r?$`, 'm'));
    }
    const bounce = (recipient: string, returnPath: string) => fixture('bounce-postfix-user-unknown.eml', { agent, recipient, messageId: rfcId, returnPath });

    // Forged: the real recipient and our real Message-ID, mailed to the agent's own address.
    expect(await mail(d, bounce('kept@example.org', agent), agent)).toMatch(/^250/);
    expect(await suppressed(d, 'kept@example.org')).toBe(false);

    let backup: string | null = null;
    if (!onPostgres) {
      const out = mkdtempSync(join(tmpdir(), 'mailagent-rp-backup-'));
      cleanup.push(() => rmSync(out, { recursive: true, force: true }));
      backup = join(out, 'copy.db');
      const b = await d.cli(['backup', backup, '--data-dir', d.dataDir, '--json'], { timeoutMs: 60_000 });
      expect(b.code, b.stderr).toBe(0);
    }

    // A restart on the same data: the key was kept, so the return path still verifies.
    await d.stop({ keep: true });
    const again = await startDaemon({ home: d.home, dataDir: d.dataDir, args: ['--relay', relay.url] });
    cleanup.push(async () => {
      await again.stop();
      rmSync(d.home, { recursive: true, force: true });
    });
    expect(await mail(again, bounce('gone@example.org', pathOf('gone@example.org')), pathOf('gone@example.org'))).toMatch(/^250/);
    expect(await suppressed(again, 'gone@example.org')).toBe(true);
    expect(await suppressed(again, 'kept@example.org')).toBe(false);

    if (backup) {
      const home2 = mkdtempSync(join(tmpdir(), 'mailagent-rp-restore-'));
      cleanup.push(() => rmSync(home2, { recursive: true, force: true }));
      const dir2 = join(home2, 'data');
      const r = await runCli(['restore', backup, '--data-dir', dir2, '--json'], { env: isolatedEnv(home2) });
      expect(r.code, r.stderr).toBe(0);
      const d2 = await startDaemon({ dataDir: dir2 });
      cleanup.push(() => d2.stop());
      const key = { ...d2, liveKey: d.liveKey } as TestDaemon;
      expect(await mail(d2, bounce('kept@example.org', pathOf('kept@example.org')), pathOf('kept@example.org'))).toMatch(/^250/);
      expect(await suppressed(key, 'kept@example.org')).toBe(true);
    }
  }, 120_000);
});
