import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { isLoopbackUrl } from '../contract/loopback.js';
import { CliError, EXIT, UsageError } from './errors.js';

/**
 * CLI profiles: `$XDG_CONFIG_HOME/mailagent/config.json` (else `~/.config/mailagent/`), mode 0600
 * because it holds keys. Written by `init` and by `serve` on a fresh data dir or database; `serve`
 * on its data again re-points that data's local profiles at the address it now listens on
 * (repointProfiles).
 */

export const DEFAULT_BASE_URL = 'http://127.0.0.1:7420';
export const DEFAULT_PROFILE = 'default';

export interface Profile {
  base_url: string;
  live_key?: string | null;
  test_key?: string | null;
  /**
   * What the keys belong to: the SQLite data directory, or (`database`) the PostgreSQL database,
   * named by databaseIdentity() (no password). `serve` re-points only the profiles of its own
   * data (repointProfiles); a profile with neither is treated as belonging to nothing.
   */
  data_dir?: string | null;
  database?: string | null;
}

/** Where a daemon's data lives, as `serve` and `init` resolved it (server/config.ts's shape). */
export interface DataLocation {
  dataDir: string;
  database: { kind: 'sqlite' } | { kind: 'postgres'; url: string };
}

/**
 * A PostgreSQL database as a profile names it: scheme, user, host, port (5432 when absent) and
 * database, never the password; of the query only what picks the server or database (`host`,
 * `hostaddr`, `port`, `dbname`, `user`), so `?sslmode=…` or a pool setting on one daemon's URL
 * names the same database as `init`'s URL without it (docs/scale-out.md does exactly that).
 */
export function databaseIdentity(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url.replace(/\/\/([^:@/]+):([^@/]*)@/, '//$1@');
  }
  const keep = ['host', 'hostaddr', 'port', 'dbname', 'user'];
  const query = [...u.searchParams].filter(([k]) => keep.includes(k)).sort(([a], [b]) => a.localeCompare(b));
  const user = u.username ? `${u.username}@` : '';
  const port = u.port || (u.hostname ? '5432' : '');
  const q = query.length ? '?' + new URLSearchParams(query).toString() : '';
  return `${u.protocol.replace('postgresql:', 'postgres:')}//${user}${u.hostname.toLowerCase()}${port ? `:${port}` : ''}${u.pathname}${q}`;
}

/** The profile fields that say whose keys these are (data_dir for SQLite, database for PostgreSQL). */
export function profileOwner(at: DataLocation): Pick<Profile, 'data_dir' | 'database'> {
  return at.database.kind === 'postgres' ? { database: databaseIdentity(at.database.url) } : { data_dir: at.dataDir };
}

/** Whether a profile was saved for the data at `at` (not merely for the same data dir path). */
export function profileIsFor(p: Profile, at: DataLocation): boolean {
  if (at.database.kind === 'postgres') return !!p.database && p.database === databaseIdentity(at.database.url);
  return !p.database && !!p.data_dir && p.data_dir === at.dataDir;
}

/** The data at `at` in words: the data dir, or the database without its password. */
export function describeLocation(at: DataLocation): string {
  return at.database.kind === 'postgres' ? databaseIdentity(at.database.url) : at.dataDir;
}

export interface ConfigFile {
  default_profile?: string;
  profiles: Record<string, Profile>;
  /**
   * `webhooks listen` signing secrets by daemon base URL: the same secret on every run against
   * one daemon (as `stripe listen` does), so a receiver configured once keeps verifying.
   */
  listen_secrets?: Record<string, string>;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.trim() ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'mailagent', 'config.json');
}

export function readConfigFile(file: string): ConfigFile {
  if (!existsSync(file)) return { profiles: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CliError(`${file} is not valid JSON (${(err as Error).message}); fix or delete it`);
  }
  const c = parsed as Partial<ConfigFile> | null;
  if (!c || typeof c !== 'object' || (c.profiles !== undefined && (typeof c.profiles !== 'object' || c.profiles === null))) {
    throw new CliError(`${file} does not look like a mailagent CLI config (expected {"profiles": {...}})`);
  }
  return { ...c, profiles: c.profiles ?? {} } as ConfigFile;
}

/** Write atomically with 0600 (directory 0700): the file holds API keys. */
export function writeConfigFile(file: string, config: ConfigFile): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** Create or replace one profile; the first profile saved becomes the default. */
export function saveProfile(name: string, profile: Profile, env: NodeJS.ProcessEnv = process.env): string {
  const file = configPath(env);
  const config = readConfigFile(file);
  config.profiles[name] = profile;
  config.default_profile ??= name;
  writeConfigFile(file, config);
  return file;
}

/**
 * Save the keys of a freshly initialised data directory without ever replacing an existing
 * profile (its keys may be the only copy: only hashes are stored). When `wanted` is taken the
 * first free `<wanted>-2`, `<wanted>-3`, … is used, and the caller says which.
 */
export function saveNewProfile(wanted: string, profile: Profile, env: NodeJS.ProcessEnv = process.env): { name: string; file: string; renamed: boolean; isDefault: boolean } {
  const file = configPath(env);
  const config = readConfigFile(file);
  let name = wanted;
  for (let n = 2; config.profiles[name]; n++) name = `${wanted}-${n}`;
  config.profiles[name] = profile;
  config.default_profile ??= name;
  writeConfigFile(file, config);
  return { name, file, renamed: name !== wanted, isDefault: config.default_profile === name };
}

/**
 * A daemon started on its data again, on other ports: the profiles saved for that data (its data
 * dir, or its PostgreSQL database: profileIsFor) that point at a loopback URL are pointed at where
 * it now listens, so the CLI keeps working without --base-url. A profile with any other URL (a proxy, a tunnel, a public name) is the
 * user's choice and is left alone. Returns what changed (`was` is the old URL).
 */
export function repointProfiles(at: DataLocation, baseUrl: string, env: NodeJS.ProcessEnv = process.env): { names: { name: string; was: string }[]; file: string } {
  const file = configPath(env);
  const config = readConfigFile(file);
  const names: { name: string; was: string }[] = [];
  for (const [name, p] of Object.entries(config.profiles)) {
    if (!profileIsFor(p, at) || p.base_url === baseUrl || !isLoopbackUrl(p.base_url)) continue;
    names.push({ name, was: p.base_url });
    p.base_url = baseUrl;
  }
  if (names.length) writeConfigFile(file, config);
  return { names, file };
}

/**
 * The `webhooks listen` signing secret for a daemon: the one saved for `baseUrl`, or a new one
 * from `generate` saved for the next run (`renew` replaces a saved one). `saved` is false when
 * the config file could not be written (the secret is then good for this run only).
 */
export function listenSecret(
  baseUrl: string, generate: () => string, renew: boolean, env: NodeJS.ProcessEnv = process.env,
): { secret: string; reused: boolean; saved: boolean; file: string } {
  const file = configPath(env);
  const config = readConfigFile(file);
  const known = config.listen_secrets?.[baseUrl];
  if (known && !renew) return { secret: known, reused: true, saved: true, file };
  const secret = generate();
  config.listen_secrets = { ...config.listen_secrets, [baseUrl]: secret };
  try {
    writeConfigFile(file, config);
    return { secret, reused: false, saved: true, file };
  } catch {
    return { secret, reused: false, saved: false, file };
  }
}

/** The sentence that tells where a new profile went and how to use it. */
export function savedProfileText(r: { name: string; file: string; renamed: boolean; isDefault: boolean }, wanted: string): string {
  if (!r.renamed) return `Saved profile "${r.name}" in ${r.file}: \`mailagent whoami\` works from another terminal.`;
  return `Profile "${wanted}" already exists and was kept; saved these keys as profile "${r.name}" in ${r.file}. `
    + `Use it with \`mailagent --profile ${r.name} …\` or MAILAGENT_PROFILE=${r.name}.`;
}

export interface GlobalFlags {
  baseUrl?: string;
  apiKey?: string;
  profile?: string;
  live?: boolean;
  json?: boolean;
  color?: boolean;
  quiet?: boolean;
}

export interface Resolved {
  baseUrl: string;
  apiKey: string | null;
  /** Where the key came from, for messages. */
  keySource: 'flag' | 'env' | 'profile' | null;
  profile: string;
  profileFound: boolean;
  live: boolean;
  configFile: string;
}

/** flags > MAILAGENT_BASE_URL / MAILAGENT_API_KEY / MAILAGENT_PROFILE > profile > defaults. */
export function resolveConnection(flags: GlobalFlags, env: NodeJS.ProcessEnv = process.env): Resolved {
  const configFile = configPath(env);
  const explicitProfile = flags.profile ?? (env.MAILAGENT_PROFILE || undefined);
  const needProfile = !(flags.baseUrl ?? env.MAILAGENT_BASE_URL) || !(flags.apiKey ?? env.MAILAGENT_API_KEY);
  const config = needProfile || explicitProfile ? readConfigFile(configFile) : { profiles: {} as Record<string, Profile> };
  const name = explicitProfile ?? config.default_profile ?? DEFAULT_PROFILE;
  const profile = config.profiles[name];
  if (explicitProfile && !profile) {
    const known = Object.keys(config.profiles);
    throw new UsageError(`no profile "${explicitProfile}" in ${configFile}` + (known.length ? ` (known: ${known.join(', ')})` : ''));
  }
  const live = flags.live ?? false;
  const baseUrl = flags.baseUrl || env.MAILAGENT_BASE_URL || profile?.base_url || DEFAULT_BASE_URL;
  let apiKey: string | null = null;
  let keySource: Resolved['keySource'] = null;
  if (flags.apiKey) {
    apiKey = flags.apiKey;
    keySource = 'flag';
  } else if (env.MAILAGENT_API_KEY) {
    apiKey = env.MAILAGENT_API_KEY;
    keySource = 'env';
  } else if (profile) {
    // Test key unless --live (the Stripe CLI's convention: test mode by default).
    apiKey = (live ? profile.live_key : profile.test_key) ?? null;
    keySource = apiKey ? 'profile' : null;
  }
  return { baseUrl, apiKey, keySource, profile: name, profileFound: !!profile, live, configFile };
}

export function missingKeyError(r: Resolved): CliError {
  const which = r.live ? 'live' : 'test';
  const hint = r.profileFound
    ? `profile "${r.profile}" in ${r.configFile} has no ${which} key`
    : `no profile "${r.profile}" in ${r.configFile}`;
  return new CliError(
    `no API key: ${hint}. Pass --api-key, set MAILAGENT_API_KEY, or run \`mailagent init\` (or \`mailagent serve\` on a fresh data dir) to create one; `
      + 'for a data dir already initialised, `mailagent admin keys create --data-dir DIR` makes a new key',
    EXIT.auth,
  );
}
