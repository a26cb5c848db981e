import { readFileSync, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ServiceConfig } from '../services/context.js';
import { DEFAULT_TRUSTED_NETWORKS, invalidCidr } from '../mail/auth.js';

export interface Config extends ServiceConfig {
  host: string;
  port: number;
  smtpHost: string;
  smtpPort: number;
  dbFile: string;
  tlsCert: string | null;
  tlsKey: string | null;
  logLevel: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  /** Largest message accepted over SMTP, bytes (advertised as SIZE and enforced). */
  smtpMaxMessageBytes: number;
  /** Where the config file was read from, if any. */
  configFile: string | null;
  /** SMTP clients in these CIDRs count as authenticated (Postfix's mynetworks; default loopback). */
  trustedNetworks: string[];
  /** Where each setting's value came from (serve --print-config). */
  sources: Record<FileKey, ConfigSource>;
}

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
  /** Comma-separated CIDRs (`--trusted-networks 127.0.0.0/8,10.0.0.0/8`); "" or "none" for none. */
  trustedNetworks?: string;
  config?: string;
}

export const CONFIG_KEYS: (keyof ConfigInput)[] = [
  'dataDir', 'host', 'port', 'smtpHost', 'smtpPort', 'domain', 'publicUrl', 'relay', 'tlsCert', 'tlsKey',
  'logLevel', 'allowPrivateWebhooks', 'customDomains', 'pricePerMessage', 'smtpMaxMessageBytes', 'trustedNetworks', 'config',
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

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

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

  for (const k of ['dataDir', 'host', 'smtpHost', 'domain', 'publicUrl', 'relay', 'tlsCert', 'tlsKey', 'logLevel'] as const) {
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
    relayUrl = c.relay;
  }
  if ((c.tlsCert && !c.tlsKey) || (!c.tlsCert && c.tlsKey)) {
    throw new ConfigError(c.tlsCert ? 'tlsKey' : 'tlsCert', 'STARTTLS needs both --tls-cert and --tls-key.');
  }
  if (c.publicUrl !== undefined) {
    let u: URL | null = null;
    try {
      u = new URL(c.publicUrl);
    } catch {
      /* reported below */
    }
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) throw new ConfigError('publicUrl', `"${c.publicUrl}" is not an http:// or https:// URL.`);
  }
  const price = c.pricePerMessage === undefined ? 0 : Number(c.pricePerMessage);
  if (!Number.isFinite(price) || price < 0) throw new ConfigError('pricePerMessage', `"${c.pricePerMessage}" is not a non-negative number.`);
  const trustedNetworks = c.trustedNetworks === undefined
    ? [...DEFAULT_TRUSTED_NETWORKS]
    : String(c.trustedNetworks).split(',').map((x) => x.trim()).filter((x) => x && x.toLowerCase() !== 'none');
  const badCidr = invalidCidr(trustedNetworks);
  if (badCidr !== null) throw new ConfigError('trustedNetworks', `"${badCidr}" is not a CIDR such as 127.0.0.0/8 or ::1/128.`);
  const displayHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  const config: Config = {
    host,
    port,
    smtpHost: c.smtpHost ?? host,
    smtpPort,
    dataDir: dataDirFinal,
    dbFile: join(dataDirFinal, 'mailagent.db'),
    agentDomain: domain,
    publicUrl: (c.publicUrl ?? `http://${displayHost}:${port}`).replace(/\/+$/, ''),
    priceUsdPerMessage: price,
    relayUrl,
    allowPrivateWebhooks: bool('allowPrivateWebhooks', c.allowPrivateWebhooks) ?? isLoopbackHost(host),
    customDomains: bool('customDomains', c.customDomains) ?? true,
    tlsCert: c.tlsCert ?? null,
    tlsKey: c.tlsKey ?? null,
    logLevel,
    smtpMaxMessageBytes: int('smtpMaxMessageBytes', c.smtpMaxMessageBytes, 40 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    configFile: existsSync(configFile) ? configFile : null,
    trustedNetworks,
    sources,
    version,
  };
  return Object.freeze(config);
}

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
  return url.replace(/\/\/([^:@/]+):([^@/]+)@/, '//$1:****@');
}

/**
 * The resolved config as a config file (serve --print-config): the keys the file takes, each
 * value as resolved, the relay password redacted (`****`: put the real one back before use), and
 * `$sources` saying where each value came from (flag, env, file or default). Absent optional
 * settings (relay, TLS, public URL) are null, which the file reader treats as unset.
 */
export function printableConfig(c: Config): Record<string, unknown> {
  const values: Record<FileKey, unknown> = {
    dataDir: c.dataDir, host: c.host, port: c.port, smtpHost: c.smtpHost, smtpPort: c.smtpPort, domain: c.agentDomain,
    publicUrl: c.publicUrl, relay: c.relayUrl ? redact(c.relayUrl) : null, tlsCert: c.tlsCert, tlsKey: c.tlsKey,
    logLevel: c.logLevel, allowPrivateWebhooks: c.allowPrivateWebhooks, customDomains: c.customDomains,
    pricePerMessage: c.priceUsdPerMessage, smtpMaxMessageBytes: c.smtpMaxMessageBytes,
    trustedNetworks: c.trustedNetworks.length ? c.trustedNetworks.join(',') : 'none',
  };
  return { $sources: { ...c.sources, ...(c.configFile ? { $file: c.configFile } : {}) }, ...values };
}
