import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isolatedEnv, runCli } from '../../helpers/daemon.js';
import { loadConfig } from '../../../src/server/config.js';
import { runDoctor } from '../../../src/server/doctor.js';
import { onPostgres } from '../../helpers/db.js';

/**
 * STARTTLS files and a damaged database are configuration problems the operator fixes: serve and
 * doctor name the setting or the file and say what to do (serve exits 2, like any config error).
 */
const haveOpenssl = existsSync('/usr/bin/openssl');
const home = mkdtempSync(join(tmpdir(), 'mailagent-tls-'));
const f = (n: string) => join(home, n);
afterAll(() => rmSync(home, { recursive: true, force: true }));

beforeAll(() => {
  if (!haveOpenssl) return;
  const ssl = (...a: string[]) => execFileSync('openssl', a, { stdio: 'ignore' });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('a.key'), '-out', f('a.pem'), '-days', '2', '-subj', '/CN=mx.test');
  ssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', f('b.key'));
});

const serve = (cert: string, key: string) => runCli(['serve', '--data-dir', f('data'), '--port', '0', '--smtp-port', '0', '--tls-cert', cert, '--tls-key', key], { env: isolatedEnv(home) });
const doctorTls = async (cert: string, key: string) => {
  const checks = await runDoctor(loadConfig({ dataDir: f('data'), port: 0, smtpPort: 0, tlsCert: cert, tlsKey: key, minFreeDiskMb: 0 }, {}), { referenceTime: async () => null, freeSpace: async () => 1e12 } as never);
  return checks.find((c) => c.check === 'smtp tls');
};

describe.skipIf(!haveOpenssl)('STARTTLS files (openssl-made certificate)', () => {
  it('serve exits 2 naming the setting and the fix: missing file, swapped cert/key, a key of another certificate', async () => {
    const missing = await serve(f('nope.pem'), f('a.key'));
    expect(missing.code, missing.stderr).toBe(2);
    expect(missing.stderr).toMatch(/tlsCert: cannot read .*nope\.pem: no such file\. Point --tls-cert \(MAILAGENT_TLS_CERT, config tlsCert\)/);
    const swapped = await serve(f('a.key'), f('a.pem'));
    expect(swapped.code).toBe(2);
    expect(swapped.stderr).toMatch(/are swapped/);
    const mismatch = await serve(f('a.pem'), f('b.key'));
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toMatch(/tlsKey: .*b\.key is not the key of the certificate in .*a\.pem/);
    const garbage = f('garbage.pem');
    writeFileSync(garbage, 'not a certificate\n');
    const bad = await serve(garbage, f('a.key'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/is not a PEM certificate/);
    expect(existsSync(join(f('data'), 'mailagent.db'))).toBe(false); // nothing started
  });

  it('doctor checks the same files: fail with the fix, ok for a matching pair', async () => {
    mkdirSync(f('data'), { recursive: true });
    expect(await doctorTls(f('a.pem'), f('b.key'))).toMatchObject({ status: 'fail', detail: expect.stringMatching(/not the key of the certificate/), fix: expect.stringMatching(/--tls-key/) });
    expect(await doctorTls(f('missing.pem'), f('a.key'))).toMatchObject({ status: 'fail', detail: expect.stringMatching(/no such file/) });
    expect(await doctorTls(f('a.pem'), f('a.key'))).toMatchObject({ status: 'ok' });
  });
});

describe.skipIf(onPostgres)('doctor on a damaged database', () => {
  it('fails the database check naming the file and pointing at the backups, instead of crashing', async () => {
    const dir = f('broken');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'mailagent.db'), Buffer.alloc(8192, 0x41));
    const checks = await runDoctor(loadConfig({ dataDir: dir, port: 0, smtpPort: 0, minFreeDiskMb: 0 }, {}), { referenceTime: async () => null, freeSpace: async () => 1e12 } as never);
    const db = checks.find((c) => c.check === 'database')!;
    expect(db.status).toBe('fail');
    expect(db.detail).toContain(join(dir, 'mailagent.db'));
    expect(db.fix).toMatch(/damaged: stop the daemon and restore .*backups/);
    const cli = await runCli(['doctor', '--data-dir', dir, '--port', '0', '--smtp-port', '0'], { env: isolatedEnv(home) });
    expect(cli.code).toBe(1);
    expect(cli.stdout + cli.stderr).toMatch(/mailagent\.db/);
  });
});
