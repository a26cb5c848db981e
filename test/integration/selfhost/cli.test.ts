import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { isolatedEnv, runCli, tempHome } from '../../helpers/daemon.js';
import { loadConfig, printableConfig, ConfigError } from '../../../src/server/config.js';
import { createTestApp } from '../../helpers/app.js';
import { count, deliver } from './helpers.js';

let home = '';
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  home = tempHome();
  env = isolatedEnv(home);
  const init = await runCli(['init', '--data-dir', join(home, 'd')], { env });
  expect(init.code, init.stderr).toBe(0);
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('mailagent admin purge', () => {
  it('needs --agent or --before, a valid date, --yes without a terminal, and a known agent', async () => {
    const d = join(home, 'd');
    const none = await runCli(['admin', 'purge', '--data-dir', d, '--yes'], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--agent A, --before DATE/);
    const badDate = await runCli(['admin', 'purge', '--before', 'last tuesday', '--data-dir', d, '--yes'], { env });
    expect(badDate.code).toBe(2);
    expect(badDate.stderr).toMatch(/ISO 8601/);
    const noYes = await runCli(['admin', 'purge', '--before', '2026-01-01', '--data-dir', d], { env });
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toMatch(/--yes/);
    const unknown = await runCli(['admin', 'purge', '--agent', 'nobody', '--data-dir', d, '--yes'], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no agent "nobody"/);
    const ok = await runCli(['admin', 'purge', '--agent', 'agent', '--before', '2026-01-01T00:00:00Z', '--data-dir', d, '--yes', '--json'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.json()).toMatchObject({ received: 0, sent: 0, before: '2026-01-01T00:00:00.000Z', agent_id: expect.stringMatching(/^agt_/) });
  });
});

describe('mailagent admin purge on the configured database', () => {
  it('deletes from the database the config names (PostgreSQL on the PostgreSQL run, the data dir\'s file otherwise)', async () => {
    const t = await createTestApp();
    try {
      await deliver(t.ctx, t.boot.agent.email, 'to purge');
      const db = t.config.database;
      const e = isolatedEnv(home, db.kind === 'postgres' ? { MAILAGENT_DATABASE_URL: db.url } : {});
      const r = await runCli(['admin', 'purge', '--agent', t.boot.agent.id, '--data-dir', t.dir, '--yes', '--json'], { env: e });
      expect(r.code, r.stderr).toBe(0);
      expect(r.json()).toMatchObject({ received: 1 });
      expect(await count(t.ctx, 'received_messages')).toBe(0);
      // The audit log shows it (an outside tester found no entry), as it shows a key an operator made.
      const made = await runCli(['admin', 'keys', 'create', '--name', 'recovery', '--data-dir', t.dir, '--json'], { env: e });
      expect(made.code, made.stderr).toBe(0);
      const audit = await t.ctx.db.selectFrom('logs').select(['action', 'agent_id', 'metadata']).where('workspace_id', '=', t.boot.workspace.id).orderBy('id').execute();
      const purged = audit.find((l) => l.action === 'workspace.mail_purged');
      expect(purged).toMatchObject({ agent_id: t.boot.agent.id });
      expect(JSON.parse(String(purged!.metadata))).toMatchObject({ by: 'operator', received: 1 });
      expect(audit.map((l) => l.action)).toContain('api_key.created');
      expect(audit.map((l) => l.action)).not.toContain('created');
    } finally {
      await t.close();
    }
  });
});

describe('mailagent health', () => {
  it('exits 1 naming the URL when no daemon answers', async () => {
    const r = await runCli(['health', '--ready', '--url', 'http://127.0.0.1:9'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9\/health\/ready/);
  });
});

describe('self-hosting configuration', () => {
  it('defaults keep everything, guard 256 MiB, back up before migrating', () => {
    const c = loadConfig({ dataDir: join(home, 'x') }, {});
    expect(c.retention).toEqual({ messagesDays: 0, messagesPerAgent: 0, eventsDays: 0, webhookDeliveriesDays: 0, requestLogDays: 0 });
    expect(c.minFreeDiskBytes).toBe(256 * 1024 * 1024);
    expect(c.backupBeforeMigrate).toBe(true);
    expect(c.metricsListen).toBeNull();
  });

  it('flags > env > file; bad values fail naming the field; the token is redacted', () => {
    const c = loadConfig({ dataDir: join(home, 'x'), retentionMessagesDays: '30' }, {
      MAILAGENT_RETENTION_MESSAGES_DAYS: '60', MAILAGENT_METRICS_LISTEN: '[::1]:9464', MAILAGENT_METRICS_TOKEN: 'abcdefghijklmnopqrstuvwxyz', MAILAGENT_BACKUP_BEFORE_MIGRATE: 'false',
    });
    expect(c.retention.messagesDays).toBe(30);
    expect(c.metricsListen).toEqual({ host: '::1', port: 9464 });
    expect(c.backupBeforeMigrate).toBe(false);
    expect(printableConfig(c).metricsToken).toBe('****');
    expect(() => loadConfig({ dataDir: home, metricsListen: '9464' }, {})).toThrow(/metricsListen: "9464" is not ADDR:PORT/);
    expect(() => loadConfig({ dataDir: home, metricsToken: 'short' }, {})).toThrow(ConfigError);
    expect(() => loadConfig({ dataDir: home, retentionEventsDays: '-1' }, {})).toThrow(/retentionEventsDays/);
    expect(() => loadConfig({ dataDir: home, minFreeDiskMb: 'lots' }, {})).toThrow(/minFreeDiskMb/);
  });
});
