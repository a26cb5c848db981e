import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, loadConfig, ConfigError, type ResourceLimits } from '../../../src/server/config.js';
import { ROOT } from '../../helpers/daemon.js';

// Every configurable cap exists with a default, is read from env and config file, fails at boot
// on a bad value, and is documented (docs/security.md and README's configuration table).
const security = readFileSync(`${ROOT}/docs/security.md`, 'utf8');
const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
const envName = (k: string) => 'MAILAGENT_' + k.replace(/[A-Z]/g, (c) => '_' + c).toUpperCase();
const shown = (k: keyof ResourceLimits, v: number) =>
  k.endsWith('Bytes') ? `${v / 1024 / 1024} MiB` : k.endsWith('Seconds') ? `${v} s` : v.toLocaleString('en-US');

describe('resource caps', () => {
  const keys = Object.keys(DEFAULT_LIMITS) as (keyof ResourceLimits)[];

  it.each(keys)('%s: a positive default, documented with its key in docs/security.md and README', (k) => {
    const v = DEFAULT_LIMITS[k];
    expect(v).toBeGreaterThan(0);
    const row = security.split('\n').find((l) => l.startsWith('|') && l.includes(`\`${k}\``));
    expect(row, `docs/security.md has no row naming \`${k}\``).toBeTruthy();
    expect(row!.split('|')[2].trim()).toBe(shown(k, v));
    const readmeRow = readme.split('\n').find((l) => l.includes(`\`${envName(k)}\``));
    expect(readmeRow, `README has no row for ${envName(k)}`).toBeTruthy();
    expect(readmeRow!.split('|')[3].trim()).toBe(`\`${v}\``);
  });

  it('are read from the environment and the config file, and a bad value fails at boot naming the key', () => {
    const dir = `/tmp/mailagent-limits-${process.pid}`;
    const c = loadConfig({ dataDir: dir }, { MAILAGENT_SMTP_MAX_CONNECTIONS_PER_ADDRESS: '5', MAILAGENT_SSE_MAX_STREAMS_PER_KEY: '3' });
    expect(c.limits).toMatchObject({ smtpMaxConnectionsPerAddress: 5, sseMaxStreamsPerKey: 3, smtpMaxSessionSeconds: DEFAULT_LIMITS.smtpMaxSessionSeconds });
    expect(() => loadConfig({ dataDir: dir, smtpMaxSessionSeconds: 'forever' }, {})).toThrow(ConfigError);
    expect(() => loadConfig({ dataDir: dir }, { MAILAGENT_SSE_MAX_STREAMS: '0' })).toThrow(/sseMaxStreams/);
  });

  it('the worker-pool budget line is there for the pipeline change to fill in', () => {
    expect(security).toMatch(/per-message parse\/classify budget \(worker pool\)/i);
  });
});
