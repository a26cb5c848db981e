import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, printableConfig, ConfigError, type ConfigInput } from '../../../src/server/config.js';

// DESIGN.md "Daemon": flags > env (MAILAGENT_*) > config file > defaults; a bad value fails at
// boot naming the field; --print-config redacts secrets.
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'mailagent-cfg-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function fails(flags: ConfigInput, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    loadConfig(flags, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('defaults', () => {
  it('data dir under XDG_DATA_HOME, else ~/.local/share; 127.0.0.1:7420, SMTP 2525, mailagent.localhost', () => {
    const xdg = tempDir();
    const c = loadConfig({}, { XDG_DATA_HOME: xdg });
    expect(c.dataDir).toBe(join(xdg, 'mailagent'));
    expect(c.dbFile).toBe(join(xdg, 'mailagent', 'mailagent.db'));
    expect(c).toMatchObject({ host: '127.0.0.1', port: 7420, smtpHost: '127.0.0.1', smtpPort: 2525, agentDomain: 'mailagent.localhost', relayUrl: null, logLevel: 'info' });
    expect(c.publicUrl).toBe('http://127.0.0.1:7420');
    expect(c.allowPrivateWebhooks).toBe(true);
    // Behind a reverse proxy (loopback listener, a public URL elsewhere): private targets refused by default.
    expect(loadConfig({ publicUrl: 'https://mail.example.com' }, { XDG_DATA_HOME: xdg }).allowPrivateWebhooks).toBe(false);
    expect(loadConfig({ publicUrl: 'http://localhost:7420' }, { XDG_DATA_HOME: xdg }).allowPrivateWebhooks).toBe(true);
    expect(loadConfig({ publicUrl: 'https://mail.example.com', allowPrivateWebhooks: 'true' }, { XDG_DATA_HOME: xdg }).allowPrivateWebhooks).toBe(true);
    expect(loadConfig({ host: '0.0.0.0' }, { XDG_DATA_HOME: xdg }).allowPrivateWebhooks).toBe(false);
    expect(c.trustedProxies).toEqual([]);
    expect(loadConfig({ trustedProxies: '127.0.0.1, ::1, 10.0.0.0/8' }, { XDG_DATA_HOME: xdg }).trustedProxies).toEqual(['127.0.0.1/32', '::1/128', '10.0.0.0/8']);
    expect(() => loadConfig({ trustedProxies: 'proxy.local' }, { XDG_DATA_HOME: xdg })).toThrow(/trustedProxies.*"proxy\.local" is not an address or CIDR/);
    expect(Object.isFrozen(c)).toBe(true);
    // Without XDG_DATA_HOME, the home directory (this only reads, never creates).
    expect(loadConfig({ config: undefined }, {}).dataDir).toBe(join(homedir(), '.local', 'share', 'mailagent'));
  });
});

describe('precedence: flags > env > config file > defaults', () => {
  it('applies per field', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ port: 1111, domain: 'file.example', host: '127.0.0.2', logLevel: 'info' }));
    const env = { MAILAGENT_PORT: '2222', MAILAGENT_DOMAIN: 'env.example' };
    const all = loadConfig({ dataDir: dir, port: '3333' }, env);
    expect(all.port).toBe(3333);
    expect(all.agentDomain).toBe('env.example');
    expect(all.host).toBe('127.0.0.2');
    expect(all.logLevel).toBe('info');
    expect(all.configFile).toBe(join(dir, 'config.json'));
    expect(loadConfig({ dataDir: dir }, env).port).toBe(2222);
    expect(loadConfig({ dataDir: dir }, {}).port).toBe(1111);
    expect(loadConfig({ dataDir: dir }, {}).agentDomain).toBe('file.example');
    expect(loadConfig({ dataDir: dir, domain: 'Flag.Example' }, env).agentDomain).toBe('flag.example');
    const bare = tempDir();
    expect(loadConfig({ dataDir: bare }, {}).port).toBe(7420);
    expect(loadConfig({ dataDir: bare }, {}).configFile).toBeNull();
  });

  it('reads MAILAGENT_* for every option, including the data dir', () => {
    const dir = tempDir();
    const c = loadConfig({}, {
      MAILAGENT_DATA_DIR: dir, MAILAGENT_HOST: '0.0.0.0', MAILAGENT_SMTP_PORT: '2526', MAILAGENT_SMTP_HOST: '127.0.0.3',
      MAILAGENT_PUBLIC_URL: 'https://mail.example/', MAILAGENT_ALLOW_PRIVATE_WEBHOOKS: 'false', MAILAGENT_LOG_LEVEL: 'debug',
      MAILAGENT_PRICE_PER_MESSAGE: '0.001', MAILAGENT_SMTP_MAX_MESSAGE_BYTES: '2048',
    });
    expect(c).toMatchObject({
      dataDir: dir, host: '0.0.0.0', smtpPort: 2526, smtpHost: '127.0.0.3', publicUrl: 'https://mail.example',
      allowPrivateWebhooks: false, logLevel: 'debug', priceUsdPerMessage: 0.001, smtpMaxMessageBytes: 2048,
    });
    // An empty variable counts as unset.
    expect(loadConfig({ dataDir: dir }, { MAILAGENT_PORT: '' }).port).toBe(7420);
  });

  it('an explicit --config file is read, and must exist', () => {
    const dir = tempDir();
    const file = join(dir, 'custom.json');
    writeFileSync(file, JSON.stringify({ smtpPort: '2600' }));
    expect(loadConfig({ dataDir: dir, config: file }, {}).smtpPort).toBe(2600);
    expect(loadConfig({ dataDir: dir }, { MAILAGENT_CONFIG: file }).smtpPort).toBe(2600);
    expect(fails({ dataDir: dir, config: join(dir, 'missing.json') }).field).toBe('config');
  });
});

describe('bad values fail at boot, naming the field', () => {
  it('from flags and env', () => {
    const dir = tempDir();
    const cases: [ConfigInput, NodeJS.ProcessEnv, string][] = [
      [{ port: 'abc' }, {}, 'port'],
      [{ port: '70000' }, {}, 'port'],
      [{ port: '-1' }, {}, 'port'],
      [{}, { MAILAGENT_PORT: '80x' }, 'port'],
      [{ smtpPort: '1.5' }, {}, 'smtpPort'],
      [{ domain: 'not a domain' }, {}, 'domain'],
      [{ domain: 'localhost' }, {}, 'domain'],
      [{ logLevel: 'loud' }, {}, 'logLevel'],
      [{ relay: 'http://relay.example' }, {}, 'relay'],
      [{ relay: 'not a url' }, {}, 'relay'],
      [{ tlsCert: '/x.pem' }, {}, 'tlsKey'],
      [{ tlsKey: '/x.key' }, {}, 'tlsCert'],
      [{ pricePerMessage: '-1' }, {}, 'pricePerMessage'],
      [{ pricePerMessage: 'free' }, {}, 'pricePerMessage'],
      [{}, { MAILAGENT_ALLOW_PRIVATE_WEBHOOKS: 'maybe' }, 'allowPrivateWebhooks'],
      [{ smtpMaxMessageBytes: '10' }, {}, 'smtpMaxMessageBytes'],
      [{ publicUrl: 'ftp://x' }, {}, 'publicUrl'],
      [{ publicUrl: 'nope' }, {}, 'publicUrl'],
    ];
    for (const [flags, env, field] of cases) {
      const e = fails({ dataDir: dir, ...flags }, env);
      expect(e.field, JSON.stringify(flags) + JSON.stringify(env)).toBe(field);
      expect(e.message).toContain(field);
    }
  });

  it('from the config file: bad JSON, unknown keys, wrong types, bad values', () => {
    const cases: [string, string][] = [
      ['{not json', 'config'],
      ['[1,2]', 'config'],
      ['{"prot": 7000}', 'prot'],
      ['{"host": {"a": 1}}', 'host'],
      ['{"host": 5}', 'host'],
      ['{"port": "x"}', 'port'],
      ['{"domain": ""}', 'domain'],
    ];
    for (const [text, field] of cases) {
      const dir = tempDir();
      writeFileSync(join(dir, 'config.json'), text);
      const e = fails({ dataDir: dir });
      expect(e.field, text).toBe(field);
      expect(e.message, text).toContain(field);
    }
  });
});

describe('printableConfig', () => {
  it('redacts the relay password and never prints it in errors', () => {
    const dir = tempDir();
    const c = loadConfig({ dataDir: dir, relay: 'smtp://mailer:s3cr3t-pw@relay.example:587' }, {});
    expect(c.relayUrl).toBe('smtp://mailer:s3cr3t-pw@relay.example:587');
    const p = printableConfig(c);
    const text = JSON.stringify(p);
    expect(text).not.toContain('s3cr3t-pw');
    expect(p.relay).toBe('smtp://mailer:****@relay.example:587');
    expect(p.port).toBe(c.port);
    const e = fails({ dataDir: dir, relay: 'smtp//mailer:s3cr3t-pw@relay' });
    expect(e.message).not.toContain('s3cr3t-pw');
    expect(printableConfig(loadConfig({ dataDir: dir }, {})).relay).toBeNull();
  });

  it('a printed config with its secrets still redacted is refused at start, naming the field, until the real secret is back', () => {
    const dir = tempDir();
    const p = printableConfig(loadConfig({ dataDir: dir, relay: 'smtp://mailer:s3cr3t-pw@relay.example:587', metricsToken: 'a-metrics-token-of-32-characters' }, {}));
    const file = join(dir, 'printed.json');
    writeFileSync(file, JSON.stringify(p));
    const e = fails({ config: file });
    expect(e.field).toBe('relay');
    expect(e.message).toContain('what --print-config writes in place of a secret');
    // The flag (or its environment variable) puts the secret back; then the redacted token is next.
    const e2 = fails({ config: file, relay: 'smtp://mailer:s3cr3t-pw@relay.example:587' });
    expect(e2.field).toBe('metricsToken');
    const c = loadConfig({ config: file, relay: 'smtp://mailer:s3cr3t-pw@relay.example:587', metricsToken: 'a-metrics-token-of-32-characters' }, {});
    expect(c.relayUrl).toBe('smtp://mailer:s3cr3t-pw@relay.example:587');
    expect(fails({ dataDir: dir, databaseUrl: 'postgres://u:****@db.example/mail' }).field).toBe('databaseUrl');
  });

  it('is a config file the daemon reads back, with each value\'s source', () => {
    const dir = tempDir();
    const c = loadConfig({ dataDir: dir, port: '8123' }, { MAILAGENT_SMTP_PORT: '2600' });
    const p = printableConfig(c);
    expect(p.$sources).toMatchObject({ port: 'flag', smtpPort: 'env', host: 'default', relay: 'default' });
    expect(p).toMatchObject({ port: 8123, smtpPort: 2600, domain: 'mailagent.localhost', trustedNetworks: '127.0.0.0/8,::1/128' });
    expect(p).not.toHaveProperty('relayUrl');
    expect(p).not.toHaveProperty('priceUsdPerMessage');
    const file = join(dir, 'printed.json');
    writeFileSync(file, JSON.stringify(p));
    const again = loadConfig({ config: file }, {});
    expect(again).toMatchObject({ port: 8123, smtpPort: 2600, dataDir: c.dataDir, trustedNetworks: c.trustedNetworks, logLevel: c.logLevel });
    expect(again.sources).toMatchObject({ port: 'file', smtpPort: 'file' });
  });
});

describe('database (docs/scale-out.md)', () => {
  it('SQLite in the data dir by default; --database > MAILAGENT_DATABASE_URL > config file; pool and timeout settings', () => {
    const dir = tempDir();
    const plain = loadConfig({ dataDir: dir }, {});
    expect(plain.database).toEqual({ kind: 'sqlite', file: join(dir, 'mailagent.db') });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ databaseUrl: 'postgres://file@db/a', databasePoolSize: 4 }));
    expect(loadConfig({ dataDir: dir }, {}).database).toEqual({ kind: 'postgres', url: 'postgres://file@db/a', poolSize: 4, statementTimeoutMs: 30_000 });
    const env = { MAILAGENT_DATABASE_URL: 'postgresql://env@db/b', MAILAGENT_DATABASE_STATEMENT_TIMEOUT: '0' };
    expect(loadConfig({ dataDir: dir }, env).database).toMatchObject({ url: 'postgresql://env@db/b', poolSize: 4, statementTimeoutMs: 0 });
    expect(loadConfig({ dataDir: dir, databaseUrl: 'postgres://flag@db/c?sslmode=verify-full' }, env).database).toMatchObject({ url: 'postgres://flag@db/c?sslmode=verify-full' });
  });

  it('a bad URL or setting fails at boot naming the field, without the password', () => {
    const dir = tempDir();
    const e = fails({ dataDir: dir, databaseUrl: 'mysql://u:hunter2@db/x' });
    expect(e.field).toBe('databaseUrl');
    expect(e.message).not.toContain('hunter2');
    expect(fails({ dataDir: dir, databaseUrl: 'not a url' }).field).toBe('databaseUrl');
    expect(fails({ dataDir: dir, databaseUrl: 'postgres://db/x', databasePoolSize: '0' }).field).toBe('databasePoolSize');
    expect(fails({ dataDir: dir, databaseStatementTimeout: 'soon' }).field).toBe('databaseStatementTimeout');
    const p = printableConfig(loadConfig({ dataDir: dir, databaseUrl: 'postgres://mailagent:hunter2@db/x' }, {}));
    expect(JSON.stringify(p)).not.toContain('hunter2');
    expect(p.databaseUrl).toBe('postgres://mailagent:****@db/x');
  });

  it('the webhook lease: 75 s by default, settable, never shorter than the delivery timeout + 5 s', () => {
    const dir = tempDir();
    expect(loadConfig({ dataDir: dir }, {}).webhookLeaseMs).toBe(75_000);
    const c = loadConfig({ dataDir: dir }, { MAILAGENT_WEBHOOK_LEASE_SECONDS: '20' });
    expect(c.webhookLeaseMs).toBe(20_000);
    expect(printableConfig(c).webhookLeaseSeconds).toBe(20);
    expect(fails({ dataDir: dir, webhookLeaseSeconds: 19 }).field).toBe('webhookLeaseSeconds');
  });

  it('smtpProcessingDelayMs (bursts, docs/inbound.md): 250 ms by default, 0 turns it off, at most 60,000', () => {
    const dir = tempDir();
    expect(loadConfig({ dataDir: dir }, {}).smtpProcessingDelayMs).toBe(250);
    const c = loadConfig({ dataDir: dir }, { MAILAGENT_SMTP_PROCESSING_DELAY_MS: '0' });
    expect(c.smtpProcessingDelayMs).toBe(0);
    expect(printableConfig(c).smtpProcessingDelayMs).toBe(0);
    expect(fails({ dataDir: dir, smtpProcessingDelayMs: 60_001 }).field).toBe('smtpProcessingDelayMs');
    expect(fails({ dataDir: dir, smtpProcessingDelayMs: -1 }).field).toBe('smtpProcessingDelayMs');
  });
});
