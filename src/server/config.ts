import { readFileSync, existsSync } from 'node:fs';
import { DELIVERY_TIMEOUT_MS } from '../services/webhook-dispatch.js';
import { availableParallelism, homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ServiceConfig } from '../services/context.js';
import type { RetentionPolicy } from '../services/retention.js';
import type { DatabaseSpec } from '../db/open.js';
import { STREAM_DEFAULTS } from '../services/event-stream.js';
import { DEFAULT_TRUSTED_NETWORKS, invalidCidr } from '../mail/auth.js';
import { httpUrl, isLoopbackHost, isLoopbackUrl } from '../contract/loopback.js';

export interface Config extends ServiceConfig {
  host: string;
  port: number;
  smtpHost: string;
  smtpPort: number;
  /** The SQLite file in the data dir (used unless `database` names a PostgreSQL server). */
  dbFile: string;
  /** Where the data lives: the SQLite file by default, or PostgreSQL (--database postgres://…). */
  database: DatabaseSpec;
  tlsCert: string | null;
  tlsKey: string | null;
  logLevel: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  /** Largest message accepted over SMTP, bytes (advertised as SIZE and enforced). */
  smtpMaxMessageBytes: number;
  /** Worker threads for parsing and classification (src/server/pipeline); default: cores, at least 2. */
  pipelineWorkers: number;
  /** Hard budget per message for one step (parse, classify) in a worker, ms; past it the worker is replaced. */
  pipelineBudgetMs: number;
  /**
   * During a burst of SMTP mail, processing of acknowledged mail holds back so acknowledgements
   * go first, at most this long for the oldest message, ms; 0: process at once (docs/inbound.md → Bursts).
   */
  smtpProcessingDelayMs: number;
  /** Resource caps (docs/security.md lists each with its default). */
  limits: ResourceLimits;
  /** Where the config file was read from, if any. */
  configFile: string | null;
  /** Self-hosting (issue #16): retention, disk guard, metrics exposure, upgrades. docs/self-hosting.md. */
  retention: RetentionPolicy;
  /** Below this many free bytes on the data dir's filesystem, SMTP answers 452 and sends 503 (0: off). */
  minFreeDiskBytes: number;
  /** A separate listener for GET /metrics (ADDR:PORT), or null. */
  metricsListen: { host: string; port: number } | null;
  /** Bearer token that opens /metrics to non-loopback callers (secret; redacted in --print-config). */
  metricsToken: string | null;
  /** Copy the database to <data dir>/backups before applying migrations. */
  backupBeforeMigrate: boolean;
  /** SMTP clients in these CIDRs count as authenticated (Postfix's mynetworks; default loopback). */
  trustedNetworks: string[];
  /**
   * Reverse proxies whose X-Forwarded-For / X-Forwarded-Proto the HTTP API believes (CIDRs; empty:
   * none). Without one, every client behind a same-host proxy is 127.0.0.1 to the rate limits.
   */
  trustedProxies: string[];
  /**
   * How long a daemon holds a webhook delivery it is attempting (its lease), ms: another daemon
   * attempts it only after this, so a daemon killed mid-attempt delays it by at most this much.
   * Default: the 15 s delivery timeout + 60 s to record the result; at least the timeout + 5 s.
   */
  webhookLeaseMs: number;
  /** Where each setting's value came from (serve --print-config). */
  sources: Record<FileKey, ConfigSource>;
}

/** Caps on what one client can hold (issue #10; docs/security.md). */
export interface ResourceLimits {
  /** SMTP connections at once, all addresses (smtp-server maxClients). */
  smtpMaxClients: number;
  /** SMTP connections at once from one address (IPv6: one /64); 421 past it. */
  smtpMaxConnectionsPerAddress: number;
  /** SMTP commands in a row without starting a message (NOOP/RSET/HELP/... loops); 421 past it. */
  smtpMaxCommandsWithoutProgress: number;
  /** Longest SMTP session, seconds. */
  smtpMaxSessionSeconds: number;
  /** SMTP idle timeout, seconds (the client owes us a command or data). */
  smtpIdleTimeoutSeconds: number;
  /** SMTP mail acknowledged and not processed yet (the inbound queue); 451 past it; 0: no queue, processed before the 250. */
  smtpMaxQueuedMessages: number;
  /** Open event streams (GET /v1/events/stream), all keys; 503 past it. */
  sseMaxStreams: number;
  /** Open event streams per API key; 429 past it. */
  sseMaxStreamsPerKey: number;
  /** Bytes queued to one event stream before it is dropped (the client resumes with Last-Event-ID). */
  sseMaxBufferedBytes: number;
  /** Bytes of HTTP request bodies read or parsed at once, all requests; a body past it gets 429 before it is read (server/http/body-worker.ts). */
  httpMaxBufferedBodyBytes: number;
}

/**
 * smtpProcessingDelayMs's default: how long the oldest acknowledged message may wait for processing
 * during a burst. 250 ms rather than 2 s (round 2 session 8, bench/README.md): long enough that
 * processing still runs in full rounds during a burst (as cheap per message as with 2 s, cheaper
 * than processing each message at once), short enough that burst mail is visible ~0.3 s after its
 * 250 instead of 2-3 s (docs/inbound.md → Bursts).
 */
export const DEFAULT_SMTP_PROCESSING_DELAY_MS = 250;

export const DEFAULT_LIMITS: Readonly<ResourceLimits> = Object.freeze({
  smtpMaxClients: 200,
  smtpMaxConnectionsPerAddress: 20,
  smtpMaxCommandsWithoutProgress: 20,
  smtpMaxSessionSeconds: 600,
  smtpIdleTimeoutSeconds: 60,
  smtpMaxQueuedMessages: 10_000,
  sseMaxStreams: STREAM_DEFAULTS.maxStreams,
  sseMaxStreamsPerKey: STREAM_DEFAULTS.maxStreamsPerKey,
  sseMaxBufferedBytes: STREAM_DEFAULTS.maxBufferedBytes,
  // Two of the largest sends (48 MiB each), or two 33 MB ones (bench/README.md, round 2 session 12).
  httpMaxBufferedBodyBytes: 96 * 1024 * 1024,
});

export type ConfigSource = 'flag' | 'env' | 'file' | 'default';
/** The settings a config file may hold (every key but `config` itself). */
export type FileKey = Exclude<keyof ConfigInput, 'config'>;

/** Flags and MAILAGENT_* variables share these names (flag --smtp-port ↔ MAILAGENT_SMTP_PORT ↔ file "smtpPort"). */
export interface ConfigInput {
  dataDir?: string;
  host?: string;
  port?: string | number;
  smtpHost?: string;
  smtpPort?: string | number;
  domain?: string;
  publicUrl?: string;
  relay?: string;
  tlsCert?: string;
  tlsKey?: string;
  logLevel?: string;
  allowPrivateWebhooks?: string | boolean;
  customDomains?: string | boolean;
  pricePerMessage?: string | number;
  smtpMaxMessageBytes?: string | number;
  pipelineWorkers?: string | number;
  pipelineBudgetMs?: string | number;
  smtpProcessingDelayMs?: string | number;
  smtpMaxClients?: string | number;
  smtpMaxConnectionsPerAddress?: string | number;
  smtpMaxCommandsWithoutProgress?: string | number;
  smtpMaxSessionSeconds?: string | number;
  smtpIdleTimeoutSeconds?: string | number;
  smtpMaxQueuedMessages?: string | number;
  sseMaxStreams?: string | number;
  sseMaxStreamsPerKey?: string | number;
  sseMaxBufferedBytes?: string | number;
  httpMaxBufferedBodyBytes?: string | number;
  retentionMessagesDays?: string | number;
  retentionMessagesPerAgent?: string | number;
  retentionEventsDays?: string | number;
  retentionWebhookDeliveriesDays?: string | number;
  retentionRequestLogDays?: string | number;
  minFreeDiskMb?: string | number;
  metricsListen?: string;
  metricsToken?: string;
  backupBeforeMigrate?: string | boolean;
  /** postgres://… (flag --database, MAILAGENT_DATABASE_URL); absent: SQLite in the data dir. */
  databaseUrl?: string;
  databasePoolSize?: string | number;
  /** ms; 0 turns the limit off. */
  databaseStatementTimeout?: string | number;
  /** Seconds a daemon holds a webhook delivery it attempts before another may (Config.webhookLeaseMs). */
  webhookLeaseSeconds?: string | number;
  /** Comma-separated CIDRs (`--trusted-networks 127.0.0.0/8,10.0.0.0/8`); "" or "none" for none. */
  trustedNetworks?: string;
  /** Comma-separated addresses or CIDRs of reverse proxies (`--trusted-proxies 127.0.0.1`); default none. */
  trustedProxies?: string;
  config?: string;
}

export const CONFIG_KEYS: (keyof ConfigInput)[] = [
  'dataDir', 'host', 'port', 'smtpHost', 'smtpPort', 'domain', 'publicUrl', 'relay', 'tlsCert', 'tlsKey',
  'logLevel', 'allowPrivateWebhooks', 'customDomains', 'pricePerMessage', 'smtpMaxMessageBytes',
  'pipelineWorkers', 'pipelineBudgetMs', 'smtpProcessingDelayMs',
  'smtpMaxClients', 'smtpMaxConnectionsPerAddress', 'smtpMaxCommandsWithoutProgress', 'smtpMaxSessionSeconds',
  'smtpIdleTimeoutSeconds', 'smtpMaxQueuedMessages', 'sseMaxStreams', 'sseMaxStreamsPerKey', 'sseMaxBufferedBytes', 'httpMaxBufferedBodyBytes',
  'retentionMessagesDays', 'retentionMessagesPerAgent', 'retentionEventsDays', 'retentionWebhookDeliveriesDays',
  'retentionRequestLogDays', 'minFreeDiskMb', 'metricsListen', 'metricsToken', 'backupBeforeMigrate',
  'databaseUrl', 'databasePoolSize', 'databaseStatementTimeout', 'webhookLeaseSeconds', 'trustedNetworks', 'trustedProxies', 'config',
];

export class ConfigError extends Error {
  constructor(readonly field: string, message: string) {
    // The config file's own errors name it once ("config: /x/config.json is not valid JSON").
    super(field === 'config' ? `config: ${message}` : `config: ${field}: ${message}`);
  }
}

const envName = (k: string) => 'MAILAGENT_' + k.replace(/[A-Z]/g, (c) => '_' + c).toUpperCase();

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME && env.XDG_DATA_HOME.trim() ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(base, 'mailagent');
}

function fromEnv(env: NodeJS.ProcessEnv): ConfigInput {
  const out: Record<string, string> = {};
  for (const k of CONFIG_KEYS) {
    const v = env[envName(k)];
    if (v !== undefined && v !== '') out[k] = v;
  }
  return out as ConfigInput;
}

function int(field: string, v: string | number | undefined, def: number, min: number, max: number): number {
  if (v === undefined) return def;
  const n = typeof v === 'number' ? v : /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(field, `"${v}" is not a whole number from ${min} to ${max}.`);
  return n;
}

function bool(field: string, v: string | boolean | undefined): boolean | undefined {
  if (v === undefined || typeof v === 'boolean') return v;
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  throw new ConfigError(field, `"${v}" is not true or false.`);
}

export { isLoopbackHost };

/**
 * Resolve the configuration once at boot: flags > MAILAGENT_* environment > config file
 * (<data dir>/config.json or --config) > defaults. A bad value fails here, naming the field.
 */
export function loadConfig(flags: ConfigInput, env: NodeJS.ProcessEnv = process.env, version = '0.0.0'): Readonly<Config> {
  const envIn = fromEnv(env);
  const early = { ...envIn, ...stripUndefined(flags) };
  const dataDir = resolve(early.dataDir ?? defaultDataDir(env));
  const configFile = early.config ? resolve(early.config) : join(dataDir, 'config.json');
  let fileIn: ConfigInput = {};
  if (existsSync(configFile)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(configFile, 'utf8'));
    } catch (err) {
      throw new ConfigError('config', `${configFile} is not valid JSON (${(err as Error).message}).`);
    }
    fileIn = checkFileInput(parsed, configFile);
  } else if (early.config) {
    throw new ConfigError('config', `${configFile} does not exist.`);
  }
  const c: ConfigInput = { ...stripUndefined(fileIn), ...envIn, ...stripUndefined(flags) };
  // A file named with --config may say where the data lives (the default file is inside it).
  const dataDirFinal = early.config && early.dataDir === undefined && typeof fileIn.dataDir === 'string' ? resolve(fileIn.dataDir) : dataDir;
  const given = stripUndefined(flags) as ConfigInput;
  const sources = Object.fromEntries(FILE_KEYS.map((k) => [k,
    given[k] !== undefined ? 'flag' : envIn[k] !== undefined ? 'env' : fileIn[k] !== undefined && fileIn[k] !== null ? 'file' : 'default'])) as Record<FileKey, ConfigSource>;

  for (const k of ['dataDir', 'host', 'smtpHost', 'domain', 'publicUrl', 'relay', 'tlsCert', 'tlsKey', 'logLevel', 'metricsListen', 'databaseUrl'] as const) {
    c[k] = str(k, c[k]);
  }
  const host = c.host ?? '127.0.0.1';
  const port = int('port', c.port, 7420, 0, 65535);
  const smtpPort = int('smtpPort', c.smtpPort, 2525, 0, 65535);
  const domain = (c.domain ?? 'mailagent.localhost').trim().toLowerCase();
  if (!/^(?!-)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})+$/.test(domain)) throw new ConfigError('domain', `"${c.domain}" is not a domain name.`);
  const logLevel = (c.logLevel ?? 'info') as Config['logLevel'];
  if (!['silent', 'error', 'warn', 'info', 'debug'].includes(logLevel)) {
    throw new ConfigError('logLevel', `"${c.logLevel}" is not one of silent, error, warn, info, debug.`);
  }
  let relayUrl: string | null = null;
  if (c.relay) {
    let u: URL;
    try {
      u = new URL(c.relay);
    } catch {
      throw new ConfigError('relay', `"${redact(c.relay)}" is not a URL; use smtp://user:pass@host:port or smtps://...`);
    }
    if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new ConfigError('relay', 'the relay URL must start with smtp:// or smtps://.');
    notRedacted('relay', u.password);
    relayUrl = c.relay;
  }
  if ((c.tlsCert && !c.tlsKey) || (!c.tlsCert && c.tlsKey)) {
    throw new ConfigError(c.tlsCert ? 'tlsKey' : 'tlsCert', 'STARTTLS needs both --tls-cert and --tls-key.');
  }
  if (c.publicUrl !== undefined && !httpUrl(c.publicUrl)) throw new ConfigError('publicUrl', `"${c.publicUrl}" is not an http:// or https:// URL.`);
  const price = c.pricePerMessage === undefined ? 0 : Number(c.pricePerMessage);
  if (!Number.isFinite(price) || price < 0) throw new ConfigError('pricePerMessage', `"${c.pricePerMessage}" is not a non-negative number.`);
  const dbFile = join(dataDirFinal, 'mailagent.db');
  const database = databaseSpec(c, dbFile);
  const trustedNetworks = c.trustedNetworks === undefined
    ? [...DEFAULT_TRUSTED_NETWORKS]
    : String(c.trustedNetworks).split(',').map((x) => x.trim()).filter((x) => x && x.toLowerCase() !== 'none');
  const badCidr = invalidCidr(trustedNetworks);
  if (badCidr !== null) throw new ConfigError('trustedNetworks', `"${badCidr}" is not a CIDR such as 127.0.0.0/8 or ::1/128.`);
  // A bare address is its own one-address network.
  const trustedProxies = String(c.trustedProxies ?? '').split(',').map((x) => x.trim()).filter((x) => x && x.toLowerCase() !== 'none')
    .map((x) => (x.includes('/') ? x : `${x}/${x.includes(':') ? 128 : 32}`));
  const badProxy = invalidCidr(trustedProxies);
  if (badProxy !== null) throw new ConfigError('trustedProxies', `"${badProxy.replace(/\/(32|128)$/, '')}" is not an address or CIDR such as 127.0.0.1 or 10.0.0.0/8.`);
  const displayHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  const config: Config = {
    host,
    port,
    smtpHost: c.smtpHost ?? host,
    smtpPort,
    dataDir: dataDirFinal,
    dbFile,
    database,
    agentDomain: domain,
    publicUrl: (c.publicUrl ?? `http://${displayHost}:${port}`).replace(/\/+$/, ''),
    priceUsdPerMessage: price,
    relayUrl,
    // On by default only for a local development daemon: loopback, and no public URL elsewhere (a
    // daemon behind a reverse proxy listens on loopback too, but serves the internet).
    allowPrivateWebhooks: bool('allowPrivateWebhooks', c.allowPrivateWebhooks)
      ?? (isLoopbackHost(host) && (c.publicUrl === undefined || isLoopbackUrl(c.publicUrl))),
    customDomains: bool('customDomains', c.customDomains) ?? true,
    tlsCert: c.tlsCert ?? null,
    tlsKey: c.tlsKey ?? null,
    logLevel,
    smtpMaxMessageBytes: int('smtpMaxMessageBytes', c.smtpMaxMessageBytes, 40 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    pipelineWorkers: int('pipelineWorkers', c.pipelineWorkers, Math.max(2, availableParallelism()), 1, 64),
    pipelineBudgetMs: int('pipelineBudgetMs', c.pipelineBudgetMs, 5_000, 50, 600_000),
    smtpProcessingDelayMs: int('smtpProcessingDelayMs', c.smtpProcessingDelayMs, DEFAULT_SMTP_PROCESSING_DELAY_MS, 0, 60_000),
    limits: Object.freeze({
      // 0 switches a per-address or per-session cap off; the totals must stay positive.
      smtpMaxClients: int('smtpMaxClients', c.smtpMaxClients, DEFAULT_LIMITS.smtpMaxClients, 1, 100_000),
      smtpMaxConnectionsPerAddress: int('smtpMaxConnectionsPerAddress', c.smtpMaxConnectionsPerAddress, DEFAULT_LIMITS.smtpMaxConnectionsPerAddress, 0, 100_000),
      smtpMaxCommandsWithoutProgress: int('smtpMaxCommandsWithoutProgress', c.smtpMaxCommandsWithoutProgress, DEFAULT_LIMITS.smtpMaxCommandsWithoutProgress, 0, 100_000),
      smtpMaxSessionSeconds: int('smtpMaxSessionSeconds', c.smtpMaxSessionSeconds, DEFAULT_LIMITS.smtpMaxSessionSeconds, 0, 86_400),
      smtpIdleTimeoutSeconds: int('smtpIdleTimeoutSeconds', c.smtpIdleTimeoutSeconds, DEFAULT_LIMITS.smtpIdleTimeoutSeconds, 1, 3_600),
      smtpMaxQueuedMessages: int('smtpMaxQueuedMessages', c.smtpMaxQueuedMessages, DEFAULT_LIMITS.smtpMaxQueuedMessages, 0, 10_000_000),
      sseMaxStreams: int('sseMaxStreams', c.sseMaxStreams, DEFAULT_LIMITS.sseMaxStreams, 1, 100_000),
      sseMaxStreamsPerKey: int('sseMaxStreamsPerKey', c.sseMaxStreamsPerKey, DEFAULT_LIMITS.sseMaxStreamsPerKey, 1, 100_000),
      sseMaxBufferedBytes: int('sseMaxBufferedBytes', c.sseMaxBufferedBytes, DEFAULT_LIMITS.sseMaxBufferedBytes, 1024, 1024 * 1024 * 1024),
      httpMaxBufferedBodyBytes: int('httpMaxBufferedBodyBytes', c.httpMaxBufferedBodyBytes, DEFAULT_LIMITS.httpMaxBufferedBodyBytes, 1024 * 1024, 64 * 1024 * 1024 * 1024),
    }),
    configFile: existsSync(configFile) ? configFile : null,
    trustedNetworks,
    trustedProxies,
    sources,
    version,
    retention: {
      messagesDays: int('retentionMessagesDays', c.retentionMessagesDays, 0, 0, 36_500),
      messagesPerAgent: int('retentionMessagesPerAgent', c.retentionMessagesPerAgent, 0, 0, 1_000_000_000),
      eventsDays: int('retentionEventsDays', c.retentionEventsDays, 0, 0, 36_500),
      webhookDeliveriesDays: int('retentionWebhookDeliveriesDays', c.retentionWebhookDeliveriesDays, 0, 0, 36_500),
      requestLogDays: int('retentionRequestLogDays', c.retentionRequestLogDays, 0, 0, 36_500),
    },
    minFreeDiskBytes: int('minFreeDiskMb', c.minFreeDiskMb, DEFAULT_MIN_FREE_DISK_MB, 0, 10_000_000) * 1024 * 1024,
    metricsListen: listenAddress('metricsListen', c.metricsListen),
    metricsToken: c.metricsToken === undefined ? null : metricsToken(String(c.metricsToken)),
    backupBeforeMigrate: bool('backupBeforeMigrate', c.backupBeforeMigrate) ?? true,
    webhookLeaseMs: int('webhookLeaseSeconds', c.webhookLeaseSeconds, (DELIVERY_TIMEOUT_MS + 60_000) / 1000, (DELIVERY_TIMEOUT_MS + 5_000) / 1000, 86_400) * 1000,
  };
  return Object.freeze(config);
}

/** Free space the disk guard keeps (MiB): room for a few large messages, the WAL and a checkpoint. */
export const DEFAULT_MIN_FREE_DISK_MB = 256;

/** ADDR:PORT ([v6]:PORT) for a listener, validated at boot. */
function listenAddress(field: string, v: string | undefined): { host: string; port: number } | null {
  if (v === undefined) return null;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\[\]]+)):(\d{1,5})$/.exec(v.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new ConfigError(field, `"${v}" is not ADDR:PORT (for example 127.0.0.1:9464 or [::1]:9464).`);
  return { host: m[1] ?? m[2], port };
}

function metricsToken(v: string): string {
  notRedacted('metricsToken', v.trim());
  if (v.trim().length < 16) throw new ConfigError('metricsToken', 'must be at least 16 characters (it guards /metrics from the network).');
  return v.trim();
}

/**
 * The storage: SQLite in the data dir unless a PostgreSQL URL is given. TLS to the server is
 * configured in the URL as with libpq (sslmode=require|verify-ca|verify-full, sslrootcert=…,
 * sslcert=…, sslkey=…). Pool size and statement timeout apply to PostgreSQL only.
 */
function databaseSpec(c: ConfigInput, dbFile: string): DatabaseSpec {
  const poolSize = int('databasePoolSize', c.databasePoolSize, 10, 1, 1000);
  const statementTimeoutMs = int('databaseStatementTimeout', c.databaseStatementTimeout, 30_000, 0, 3_600_000);
  if (!c.databaseUrl) return { kind: 'sqlite', file: dbFile };
  let u: URL;
  try {
    u = new URL(c.databaseUrl);
  } catch {
    throw new ConfigError('databaseUrl', `"${redact(c.databaseUrl)}" is not a URL; use postgres://user:password@host:5432/database.`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new ConfigError('databaseUrl', `"${redact(c.databaseUrl)}" is not a postgres:// URL (leave it unset for SQLite in the data dir).`);
  }
  notRedacted('databaseUrl', u.password);
  return { kind: 'postgres', url: c.databaseUrl, poolSize, statementTimeoutMs };
}

/**
 * `--print-config` writes secrets as `****`; a config file made from it and used as it is would
 * otherwise start and fail later (a relay answering 535 to every live send). Refuse it at start.
 */
function notRedacted(key: 'relay' | 'databaseUrl' | 'metricsToken', secret: string): void {
  if (secret !== REDACTED && secret.toUpperCase() !== '%2A%2A%2A%2A') return;
  throw new ConfigError(key, `the ${key === 'metricsToken' ? 'token' : 'password in the URL'} is "${REDACTED}", what --print-config writes in place of a secret; put the real one back in the config file, or give it with the flag or its MAILAGENT_ environment variable.`);
}
const REDACTED = '****';

const FILE_KEYS = CONFIG_KEYS.filter((k): k is FileKey => k !== 'config');

/**
 * A config file is an object of known settings with scalar values; a typo fails, naming the key.
 * Keys starting with `$` are comments (JSON has none): `serve --print-config` writes `$sources`.
 */
function checkFileInput(parsed: unknown, file: string): ConfigInput {
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError('config', `${file} must hold a JSON object.`);
  parsed = Object.fromEntries(Object.entries(parsed).filter(([k]) => !k.startsWith('$')));
  for (const [k, v] of Object.entries(parsed as object)) {
    if (!(CONFIG_KEYS as string[]).includes(k) || k === 'config') throw new ConfigError(k, `unknown setting in ${file}; known: ${CONFIG_KEYS.filter((x) => x !== 'config').join(', ')}.`);
    if (v !== null && !['string', 'number', 'boolean'].includes(typeof v)) throw new ConfigError(k, `must be a string, number or boolean in ${file}.`);
  }
  return Object.fromEntries(Object.entries(parsed as object).filter(([, v]) => v !== null)) as ConfigInput;
}

function str(field: string, v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !v.trim()) throw new ConfigError(field, `"${String(v)}" is not a non-empty string.`);
  return v.trim();
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):([^@/]+)@/, `//$1:${REDACTED}@`);
}

/**
 * The resolved config as a config file (serve --print-config): the keys the file takes, each
 * value as resolved, the relay password redacted (`****`: put the real one back before use), and
 * `$sources` saying where each value came from (flag, env, file or default). Absent optional
 * settings (relay, TLS, public URL) are null, which the file reader treats as unset.
 */
export function printableConfig(c: Config): Record<string, unknown> {
  const pg = c.database.kind === 'postgres' ? c.database : null;
  const values: Record<FileKey, unknown> = {
    dataDir: c.dataDir, host: c.host, port: c.port, smtpHost: c.smtpHost, smtpPort: c.smtpPort, domain: c.agentDomain,
    publicUrl: c.publicUrl, relay: c.relayUrl ? redact(c.relayUrl) : null, tlsCert: c.tlsCert, tlsKey: c.tlsKey,
    logLevel: c.logLevel, allowPrivateWebhooks: c.allowPrivateWebhooks, customDomains: c.customDomains,
    pricePerMessage: c.priceUsdPerMessage, smtpMaxMessageBytes: c.smtpMaxMessageBytes,
    trustedNetworks: c.trustedNetworks.length ? c.trustedNetworks.join(',') : 'none',
    trustedProxies: c.trustedProxies.length ? c.trustedProxies.join(',') : 'none',
    pipelineWorkers: c.pipelineWorkers, pipelineBudgetMs: c.pipelineBudgetMs, smtpProcessingDelayMs: c.smtpProcessingDelayMs,
    ...c.limits,
    retentionMessagesDays: c.retention.messagesDays, retentionMessagesPerAgent: c.retention.messagesPerAgent,
    retentionEventsDays: c.retention.eventsDays, retentionWebhookDeliveriesDays: c.retention.webhookDeliveriesDays,
    retentionRequestLogDays: c.retention.requestLogDays, minFreeDiskMb: c.minFreeDiskBytes / (1024 * 1024),
    metricsListen: c.metricsListen ? `${c.metricsListen.host.includes(':') ? `[${c.metricsListen.host}]` : c.metricsListen.host}:${c.metricsListen.port}` : null,
    metricsToken: c.metricsToken ? REDACTED : null,
    backupBeforeMigrate: c.backupBeforeMigrate,
    databaseUrl: pg ? redact(pg.url) : null, databasePoolSize: pg?.poolSize ?? null, databaseStatementTimeout: pg?.statementTimeoutMs ?? null,
    webhookLeaseSeconds: c.webhookLeaseMs / 1000,
  };
  return { $sources: { ...c.sources, ...(c.configFile ? { $file: c.configFile } : {}) }, ...values };
}
