import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir, homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configPath, databaseIdentity, profileIsFor, profileOwner, resolveConnection, saveProfile, readConfigFile, DEFAULT_BASE_URL } from '../../../src/cli/profiles.js';
import { CliError, UsageError, exitCodeFor } from '../../../src/cli/errors.js';

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-prof-'));
  env = { XDG_CONFIG_HOME: dir };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const profile = { base_url: 'http://127.0.0.1:9999', live_key: 'mk_live_p', test_key: 'mk_test_p' };

describe('configPath', () => {
  it('uses XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x' })).toBe('/x/mailagent/config.json');
    expect(configPath({})).toBe(join(homedir(), '.config', 'mailagent', 'config.json'));
    expect(configPath({ XDG_CONFIG_HOME: '  ' })).toBe(join(homedir(), '.config', 'mailagent', 'config.json'));
  });
});

describe('saveProfile', () => {
  it('writes mode 0600, keeps other profiles, and makes the first one the default', () => {
    const file = saveProfile('default', profile, env);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    saveProfile('staging', { base_url: 'https://staging.example' }, env);
    const c = readConfigFile(file);
    expect(Object.keys(c.profiles).sort()).toEqual(['default', 'staging']);
    expect(c.default_profile).toBe('default');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('tightens the mode of a pre-existing world-readable file', () => {
    const file = configPath(env);
    mkdirSync(join(dir, 'mailagent'));
    writeFileSync(file, JSON.stringify({ profiles: {} }), { mode: 0o644 });
    saveProfile('default', profile, env);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('a corrupt config file is a clear error, not a crash', () => {
    mkdirSync(join(dir, 'mailagent'));
    writeFileSync(configPath(env), '{nope');
    expect(() => resolveConnection({}, env)).toThrow(CliError);
    expect(() => resolveConnection({}, env)).toThrow(/not valid JSON/);
  });
});

describe('resolveConnection', () => {
  beforeEach(() => { saveProfile('default', profile, env); });

  it('profile: the TEST key unless --live', () => {
    const r = resolveConnection({}, env);
    expect(r).toMatchObject({ baseUrl: profile.base_url, apiKey: 'mk_test_p', keySource: 'profile', profile: 'default' });
    expect(resolveConnection({ live: true }, env).apiKey).toBe('mk_live_p');
  });

  it('environment beats the profile', () => {
    const e = { ...env, MAILAGENT_BASE_URL: 'http://env:1', MAILAGENT_API_KEY: 'mk_test_env' };
    expect(resolveConnection({}, e)).toMatchObject({ baseUrl: 'http://env:1', apiKey: 'mk_test_env', keySource: 'env' });
    // --live picks the profile's live key, but an explicit key still wins.
    expect(resolveConnection({ live: true }, e).apiKey).toBe('mk_test_env');
  });

  it('flags beat the environment', () => {
    const e = { ...env, MAILAGENT_BASE_URL: 'http://env:1', MAILAGENT_API_KEY: 'mk_test_env' };
    expect(resolveConnection({ baseUrl: 'http://flag:2', apiKey: 'mk_test_flag' }, e))
      .toMatchObject({ baseUrl: 'http://flag:2', apiKey: 'mk_test_flag', keySource: 'flag' });
  });

  it('--profile and MAILAGENT_PROFILE choose a named profile; an unknown one is a usage error', () => {
    saveProfile('staging', { base_url: 'https://staging.example', test_key: 'mk_test_s' }, env);
    expect(resolveConnection({ profile: 'staging' }, env)).toMatchObject({ baseUrl: 'https://staging.example', apiKey: 'mk_test_s' });
    expect(resolveConnection({}, { ...env, MAILAGENT_PROFILE: 'staging' }).apiKey).toBe('mk_test_s');
    expect(() => resolveConnection({ profile: 'prod' }, env)).toThrow(UsageError);
    expect(() => resolveConnection({ profile: 'prod' }, env)).toThrow(/known: default, staging/);
  });

  it('nothing configured: the default URL and no key', () => {
    const r = resolveConnection({}, { XDG_CONFIG_HOME: join(dir, 'empty') });
    expect(r).toMatchObject({ baseUrl: DEFAULT_BASE_URL, apiKey: null, profileFound: false });
  });

  it('a profile without a live key has no key under --live', () => {
    saveProfile('default', { base_url: 'http://x:1', test_key: 'mk_test_only' }, env);
    expect(resolveConnection({ live: true }, env).apiKey).toBeNull();
  });
});

describe('missing key', () => {
  it('is an authentication exit (4)', async () => {
    const { missingKeyError } = await import('../../../src/cli/profiles.js');
    const err = missingKeyError(resolveConnection({}, { XDG_CONFIG_HOME: join(dir, 'none') }));
    expect(exitCodeFor(err)).toBe(4);
    expect(err.message).toMatch(/mailagent init/);
  });
});

it('never leaves a temp file behind', () => {
  saveProfile('default', profile, env);
  const c = readFileSync(configPath(env), 'utf8');
  expect(JSON.parse(c).profiles.default.test_key).toBe('mk_test_p');
});

describe('whose keys a profile holds (a data dir or a PostgreSQL database)', () => {
  const sqlite = { dataDir: '/srv/mailagent', database: { kind: 'sqlite' as const } };
  const pg = (url: string) => ({ dataDir: '/srv/mailagent', database: { kind: 'postgres' as const, url } });

  it('names a database without its password, TLS or pool settings, with the default port', () => {
    expect(databaseIdentity('postgres://mailagent:s3cret@DB.internal/mailagent?sslmode=verify-full&sslrootcert=/x.pem'))
      .toBe('postgres://mailagent@db.internal:5432/mailagent');
    expect(databaseIdentity('postgresql://u:p@h:6432/d?host=/run/pg&application_name=x')).toBe('postgres://u@h:6432/d?host=%2Frun%2Fpg');
    expect(databaseIdentity('postgres://u:p@h/d')).toBe(databaseIdentity('postgres://u@h:5432/d?sslmode=require'));
  });

  it('a profile saved by init --database belongs to that database, not to the data dir path', () => {
    const owner = profileOwner(pg('postgres://u:p@h/d'));
    expect(owner).toEqual({ database: 'postgres://u@h:5432/d' });
    const p = { base_url: 'http://127.0.0.1:7420', ...owner };
    expect(profileIsFor(p, pg('postgres://u:other@h:5432/d?sslmode=verify-full'))).toBe(true);
    expect(profileIsFor(p, pg('postgres://u:p@h/other'))).toBe(false);
    expect(profileIsFor(p, sqlite)).toBe(false);
    const q = { base_url: 'http://127.0.0.1:7420', ...profileOwner(sqlite) };
    expect(q).toEqual({ base_url: 'http://127.0.0.1:7420', data_dir: '/srv/mailagent' });
    expect(profileIsFor(q, sqlite)).toBe(true);
    expect(profileIsFor(q, pg('postgres://u:p@h/d'))).toBe(false);
  });
});
