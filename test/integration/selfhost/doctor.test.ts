import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { TestRelay } from '../../helpers/relay.js';
import { loadConfig } from '../../../src/server/config.js';
import { runDoctor, type DoctorResolver } from '../../../src/server/doctor.js';
import { isolatedEnv, runCli, startDaemon, tempHome } from '../../helpers/daemon.js';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

let t: TestApp | null = null;
let relay: TestRelay | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
  await relay?.stop();
  relay = null;
});

const byName = <T extends { check: string }>(checks: T[], name: string): T | undefined => checks.find((c) => c.check === name);

describe('mailagent doctor', () => {
  it('checks data dir, disk, database, ports, relay EHLO, each custom domain\'s DNS (found vs needed) and clock skew', async () => {
    relay = await TestRelay.start();
    // A public URL on the internet: the SPF record names its host (the relay here is on loopback).
    t = await createTestApp({ relay: relay.url, customDomains: true, publicUrl: 'https://mail-api.example.com' });
    const add = await t.req('POST', '/v1/domains', { body: { domain: 'agents.example.org' } });
    expect(add.status, add.text).toBe(201);
    const dkim = add.body.records.find((r: { purpose: string }) => r.purpose === 'dkim');
    const spf = add.body.records.find((r: { purpose: string }) => r.purpose === 'spf');
    // Published: MX and the right DKIM key; SPF is someone else's; no DMARC.
    const resolver: DoctorResolver = {
      async txt(name) {
        if (name === dkim.name) return [[dkim.value.slice(0, 200), dkim.value.slice(200)]];
        if (name === 'agents.example.org') return [['v=spf1 include:_spf.other.example ~all']];
        return [];
      },
      async mx(name) { return name === 'agents.example.org' ? [{ exchange: 'mx.agents.example.org', priority: 10 }] : []; },
    };
    const databaseUrl = t.config.database.kind === 'postgres' ? t.config.database.url : undefined;
    const config = loadConfig({ dataDir: t.dir, port: 0, smtpPort: 0, relay: relay.url, minFreeDiskMb: 256, databaseUrl, publicUrl: 'https://mail-api.example.com' }, {});
    const checks = await runDoctor(config, { resolver, freeSpace: async () => 50 * 1024 ** 3, referenceTime: async () => Date.now() - 120_000 });
    expect(byName(checks, 'data dir')).toMatchObject({ status: 'ok' });
    expect(byName(checks, 'disk')).toMatchObject({ status: 'ok' });
    expect(byName(checks, 'database')).toMatchObject({ status: 'ok' });
    expect(byName(checks, 'http port')).toMatchObject({ status: 'ok' });
    expect(byName(checks, 'relay')).toMatchObject({ status: 'ok' });
    expect(byName(checks, 'relay')!.detail).toMatch(/answered EHLO: 250.*\(no STARTTLS\)/);
    // With a password on smtp:// and no STARTTLS offered, live sends will fail: doctor says so.
    const withPassword = loadConfig({ dataDir: t.dir, port: 0, smtpPort: 0, relay: relay.url.replace('smtp://', 'smtp://u:p@'), minFreeDiskMb: 256, databaseUrl }, {});
    const pw = await runDoctor(withPassword, { resolver, freeSpace: async () => 50 * 1024 ** 3, referenceTime: async () => Date.now() });
    expect(byName(pw, 'relay')).toMatchObject({ status: 'fail' });
    expect(byName(pw, 'relay')!.detail).toContain('offers no STARTTLS');
    expect(byName(checks, 'agents.example.org MX')).toMatchObject({ status: 'ok', detail: '10 mx.agents.example.org' });
    expect(byName(checks, 'agents.example.org DKIM')).toMatchObject({ status: 'ok' });
    const spfCheck = byName(checks, 'agents.example.org SPF')!;
    expect(spfCheck).toMatchObject({ status: 'fail' });
    expect(spfCheck.detail).toMatch(/include:_spf\.other\.example/);
    expect(spf.value).toBe('v=spf1 a:mail-api.example.com ~all');
    expect(spfCheck.fix).toContain(spf.value);
    // On loopback only there is no sending host to name: a warning with the record's note, not a comparison.
    const local = await runDoctor(loadConfig({ dataDir: t.dir, port: 0, smtpPort: 0, relay: relay.url, minFreeDiskMb: 256, databaseUrl }, {}), { resolver, freeSpace: async () => 50 * 1024 ** 3, referenceTime: async () => Date.now() });
    expect(byName(local, 'agents.example.org SPF')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^This cannot be right yet: the relay 127\.0\.0\.1 is not on the internet/) });
    expect(byName(checks, 'agents.example.org DMARC')).toMatchObject({ status: 'warn' });
    expect(byName(checks, 'agents.example.org DMARC')!.fix).toMatch(/_dmarc\.agents\.example\.org\. TXT "v=DMARC1/);
    expect(byName(checks, 'clock')).toMatchObject({ status: 'fail' });
    expect(byName(checks, 'clock')!.detail).toMatch(/120 s ahead/);
  });

  it('reports a low disk, a dead relay, a port taken by another program, and no reference clock', async () => {
    t = await createTestApp();
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const config = loadConfig({ dataDir: t.dir, host: '127.0.0.1', port, smtpPort: 0, relay: 'smtp://127.0.0.1:1', minFreeDiskMb: 256 }, {});
      const checks = await runDoctor(config, { freeSpace: async () => 1024 ** 2, referenceTime: async () => null, timeoutMs: 2000 });
      expect(byName(checks, 'disk')).toMatchObject({ status: 'fail' });
      expect(byName(checks, 'relay')).toMatchObject({ status: 'fail' });
      expect(byName(checks, 'http port')).toMatchObject({ status: 'fail' });
      expect(byName(checks, 'http port')!.detail).toMatch(/in use by another program/);
      expect(byName(checks, 'clock')).toMatchObject({ status: 'warn' });
    } finally {
      blocker.close();
    }
  });

  it('the CLI prints each check and exits 1 when one fails; a port held by a running mailagent is fine', async () => {
    const d = await startDaemon();
    try {
      const port = new URL(d.url).port;
      const r = await d.cli(['doctor', '--data-dir', d.dataDir, '--json'], { env: { MAILAGENT_PORT: port, MAILAGENT_SMTP_PORT: '0', MAILAGENT_MIN_FREE_DISK_MB: '1' }, timeoutMs: 40_000 });
      const checks = r.json() as { check: string; status: string; detail: string }[];
      expect(byName(checks, 'http port')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/served by a running mailagent/) });
      expect(byName(checks, 'relay')).toMatchObject({ status: 'warn' });
      expect(r.code).toBe(checks.some((c) => c.status === 'fail') ? 1 : 0);
      const home = tempHome();
      try {
        const notADir = join(home, 'a-file');
        writeFileSync(notADir, 'x');
        const bad = await runCli(['doctor', '--data-dir', notADir], { env: isolatedEnv(home, { MAILAGENT_PORT: '0', MAILAGENT_SMTP_PORT: '0' }), timeoutMs: 40_000 });
        expect(bad.code).toBe(1);
        expect(bad.stdout).toMatch(/FAIL {2}data dir/);
        expect(bad.stdout).toMatch(/fix: /);
        expect(bad.stderr).toMatch(/check\(s\) failed: data dir/);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    } finally {
      await d.stop();
    }
  }, 90_000);

  it('checks the relay the running daemon was started with (serve --relay), not its own environment\'s, and never prints the password', async () => {
    const closed = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const d = await startDaemon({ args: ['--relay', `smtp://user:pw-not-to-print@127.0.0.1:${closed}`] });
    try {
      const r = await d.cli(['doctor', '--data-dir', d.dataDir, '--json'], { env: { MAILAGENT_SMTP_PORT: '0', MAILAGENT_MIN_FREE_DISK_MB: '1' }, timeoutMs: 40_000 });
      const checks = r.json() as { check: string; status: string; detail: string }[];
      expect(byName(checks, 'relay')).toMatchObject({ status: 'fail', detail: expect.stringMatching(new RegExp(`127\\.0\\.0\\.1:${closed} \\(the relay of the running mailagent \\(PID \\d+\\)\\): .*ECONNREFUSED`)) });
      // The doctor's own configuration names no relay: said, as advice.
      expect(byName(checks, 'relay config')).toMatchObject({ status: 'warn', detail: expect.stringContaining('names none') });
      expect(r.code).toBe(1);
      const text = await d.cli(['doctor', '--data-dir', d.dataDir], { env: { MAILAGENT_SMTP_PORT: '0', MAILAGENT_MIN_FREE_DISK_MB: '1' }, timeoutMs: 40_000 });
      expect(text.stdout).toMatch(/FAIL {2}relay: .*ECONNREFUSED/);
      expect(text.code).toBe(1);
      for (const out of [r.stdout, r.stderr, text.stdout, text.stderr]) expect(out).not.toContain('pw-not-to-print');
    } finally {
      await d.stop();
    }
    // A daemon with a working relay: ok, even though the doctor's environment names none.
    relay = await TestRelay.start();
    const ok = await startDaemon({ args: ['--relay', relay.url] });
    try {
      const r = await ok.cli(['doctor', '--data-dir', ok.dataDir, '--json'], { env: { MAILAGENT_SMTP_PORT: '0', MAILAGENT_MIN_FREE_DISK_MB: '1' }, timeoutMs: 40_000 });
      const checks = r.json() as { check: string; status: string; detail: string }[];
      expect(byName(checks, 'relay')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/answered EHLO/) });
      // The same relay in the doctor's environment: nothing to say about the configuration.
      const same = await ok.cli(['doctor', '--data-dir', ok.dataDir, '--json'], { env: { MAILAGENT_SMTP_PORT: '0', MAILAGENT_MIN_FREE_DISK_MB: '1', MAILAGENT_RELAY: relay.url }, timeoutMs: 40_000 });
      expect(byName(same.json() as { check: string }[], 'relay config')).toBeUndefined();
    } finally {
      await ok.stop();
    }
  }, 120_000);

  it('a custom domain\'s SPF and MX advice names the running daemon\'s relay and public host (its flags), not the doctor\'s own', async () => {
    const d = await startDaemon({ args: ['--relay', 'smtp://user:pw-not-to-print@smtp.relay-provider.example:587', '--public-url', 'https://mail-api.example.net'] });
    try {
      const add = await d.api('POST', '/v1/domains', { domain: 'agents.example.org' });
      const spf = add.records.find((r: { purpose: string }) => r.purpose === 'spf');
      expect(spf.value).toContain('smtp.relay-provider.example');
      const resolver: DoctorResolver = {
        async txt(name) { return name === 'agents.example.org' ? [['v=spf1 include:_spf.other.example ~all']] : []; },
        async mx() { return []; },
      };
      // The doctor's own configuration names neither the relay nor the public URL.
      const config = loadConfig({ dataDir: d.dataDir, port: 0, smtpPort: 0, minFreeDiskMb: 1, databaseUrl: d.env.MAILAGENT_DATABASE_URL }, {});
      expect(config.relayUrl).toBeNull();
      const checks = await runDoctor(config, { resolver, freeSpace: async () => 50 * 1024 ** 3, referenceTime: async () => Date.now(), timeoutMs: 2_000 });
      expect(byName(checks, 'agents.example.org SPF')).toMatchObject({ status: 'fail', fix: `publish: agents.example.org. TXT "${spf.value}"` });
      expect(byName(checks, 'agents.example.org MX')).toMatchObject({ status: 'warn', fix: 'add: agents.example.org. MX 10 mail-api.example.net.' });
      expect(JSON.stringify(checks)).not.toContain('pw-not-to-print');
    } finally {
      await d.stop();
    }
  }, 120_000);
});
