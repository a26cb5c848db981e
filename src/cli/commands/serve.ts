import { hostname } from 'node:os';
import { Option, type Command } from 'commander';
import { CliError, EXIT, UsageError } from '../errors.js';
import { examples, run, type CommandContext } from '../context.js';
import { DEFAULT_PROFILE, configPath, describeLocation, profileIsFor, profileOwner, readConfigFile, repointProfiles, saveNewProfile, savedProfileText, type DataLocation, type Profile } from '../profiles.js';
import { printKeys } from './init.js';

interface ServeOptions {
  dataDir?: string;
  host?: string;
  port?: string;
  smtpPort?: string;
  domain?: string;
  publicUrl?: string;
  relay?: string;
  tlsCert?: string;
  tlsKey?: string;
  allowPrivateWebhooks?: boolean;
  logLevel?: string;
  trustedNetworks?: string;
  trustedProxies?: string;
  config?: string;
  printConfig?: boolean;
  retentionMessagesDays?: string;
  retentionMessagesPerAgent?: string;
  retentionEventsDays?: string;
  retentionWebhookDeliveriesDays?: string;
  retentionRequestLogDays?: string;
  minFreeDiskMb?: string;
  metricsListen?: string;
  backupBeforeMigrate?: boolean;
  database?: string;
  databasePoolSize?: string;
  databaseStatementTimeout?: string;
  webhookLeaseSeconds?: string;
}

export function register(program: Command): void {
  const cmd = program
    .command('serve')
    .description('Run the daemon: the HTTP API, the SMTP listener and the workers, on one SQLite file (or a PostgreSQL server shared by several daemons)')
    .option('--data-dir <dir>', 'data directory [env MAILAGENT_DATA_DIR] (default: $XDG_DATA_HOME/mailagent)')
    .option('--host <host>', 'address to listen on [env MAILAGENT_HOST] (default: 127.0.0.1)')
    .option('--port <n>', 'HTTP port, 0 for any free port [env MAILAGENT_PORT] (default: 7420)')
    .option('--smtp-port <n>', 'SMTP port, 0 for any free port [env MAILAGENT_SMTP_PORT] (default: 2525)')
    .option('--domain <domain>', 'agent domain [env MAILAGENT_DOMAIN] (default: mailagent.localhost)')
    .option('--public-url <url>', 'URL clients reach this daemon at [env MAILAGENT_PUBLIC_URL]')
    .option('--relay <url>', 'outbound SMTP relay, smtp://user:pass@host:port or smtps://… [env MAILAGENT_RELAY]')
    .option('--tls-cert <file>', 'certificate for SMTP STARTTLS (with --tls-key) [env MAILAGENT_TLS_CERT]')
    .option('--tls-key <file>', 'private key for SMTP STARTTLS [env MAILAGENT_TLS_KEY]')
    .option('--allow-private-webhooks', 'allow webhook URLs on private networks (default: only when listening on loopback)')
    .option('--trusted-proxies <cidrs>', 'reverse proxies whose X-Forwarded-For/-Proto the API believes (addresses or CIDRs) [env MAILAGENT_TRUSTED_PROXIES] (default: none)')
    .option('--trusted-networks <cidrs>', 'SMTP clients in these CIDRs count as authenticated, "none" for none [env MAILAGENT_TRUSTED_NETWORKS] (default: 127.0.0.0/8,::1/128)')
    .addOption(new Option('--log-level <level>', 'log verbosity on stderr: info logs one line per message received or sent [env MAILAGENT_LOG_LEVEL] (default: info)').choices(['silent', 'error', 'warn', 'info', 'debug']))
    .option('--config <file>', 'config file (default: <data dir>/config.json) [env MAILAGENT_CONFIG]')
    .option('--database <url>', 'PostgreSQL shared by several daemons, postgres://user:pass@host/db (TLS: ?sslmode=verify-full) [env MAILAGENT_DATABASE_URL] (default: SQLite in the data dir)')
    .option('--database-pool-size <n>', 'PostgreSQL connections per daemon [env MAILAGENT_DATABASE_POOL_SIZE] (default: 10)')
    .option('--database-statement-timeout <ms>', 'PostgreSQL statement timeout, 0 for none [env MAILAGENT_DATABASE_STATEMENT_TIMEOUT] (default: 30000)')
    .option('--webhook-lease-seconds <n>', 'with several daemons: how long one holds a webhook delivery it attempts before another may (a daemon killed mid-attempt) [env MAILAGENT_WEBHOOK_LEASE_SECONDS] (default: 75; at least 20)')
    .option('--print-config', 'print the resolved configuration as a config file (secrets redacted, each value\'s source under "$sources") and exit')
    // Self-hosting (docs/self-hosting.md): retention (0 = keep for ever, the default), disk guard, metrics, upgrades.
    .option('--retention-messages-days <n>', 'delete received and sent messages older than N days [env MAILAGENT_RETENTION_MESSAGES_DAYS] (default: 0, keep)')
    .option('--retention-messages-per-agent <n>', 'keep at most N received and N sent messages per agent [env MAILAGENT_RETENTION_MESSAGES_PER_AGENT] (default: 0, no cap)')
    .option('--retention-events-days <n>', 'delete events older than N days [env MAILAGENT_RETENTION_EVENTS_DAYS] (default: 0, keep)')
    .option('--retention-webhook-deliveries-days <n>', 'delete finished webhook delivery records older than N days [env MAILAGENT_RETENTION_WEBHOOK_DELIVERIES_DAYS] (default: 0, keep)')
    .option('--retention-request-log-days <n>', 'delete request-log entries older than N days [env MAILAGENT_RETENTION_REQUEST_LOG_DAYS] (default: 0, keep)')
    .option('--min-free-disk-mb <n>', 'below this much free disk, refuse mail (SMTP 452, sends 503) [env MAILAGENT_MIN_FREE_DISK_MB] (default: 256; 0: off)')
    .option('--metrics-listen <addr:port>', 'also serve /metrics and /health/ready on this address [env MAILAGENT_METRICS_LISTEN]')
    .option('--no-backup-before-migrate', 'do not copy the database to <data dir>/backups before applying migrations')
    .action(run(serveAction));
  examples(cmd, [
    'mailagent serve',
    'mailagent serve --data-dir ./data --port 8080 --smtp-port 2526',
    'mailagent serve --relay smtps://user:pass@smtp.example.com:465 --domain agents.example.com',
    'mailagent serve --retention-messages-days 90 --retention-events-days 30 --metrics-listen 127.0.0.1:9464',
    'mailagent serve --database postgres://mailagent:secret@db.internal/mailagent --host 0.0.0.0',
    'mailagent serve --trusted-networks 127.0.0.0/8,10.0.0.0/8',
    'mailagent serve --print-config > my-config.json && mailagent serve --config my-config.json',
  ]);
}

/** 0.0.0.0 / :: are not addresses a client can dial: the profile gets loopback instead. */
function dialable(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}

async function serveAction(ctx: CommandContext, opts: ServeOptions): Promise<void> {
  const { loadConfig, printableConfig, ConfigError } = await import('../../server/config.js');
  const { VERSION } = await import('../../server/version.js');
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({
      dataDir: opts.dataDir, host: opts.host, port: opts.port, smtpPort: opts.smtpPort, domain: opts.domain,
      publicUrl: opts.publicUrl, relay: opts.relay, tlsCert: opts.tlsCert, tlsKey: opts.tlsKey,
      allowPrivateWebhooks: opts.allowPrivateWebhooks, logLevel: opts.logLevel, trustedNetworks: opts.trustedNetworks, trustedProxies: opts.trustedProxies, config: opts.config,
      retentionMessagesDays: opts.retentionMessagesDays, retentionMessagesPerAgent: opts.retentionMessagesPerAgent,
      retentionEventsDays: opts.retentionEventsDays, retentionWebhookDeliveriesDays: opts.retentionWebhookDeliveriesDays,
      retentionRequestLogDays: opts.retentionRequestLogDays, minFreeDiskMb: opts.minFreeDiskMb, metricsListen: opts.metricsListen,
      // commander sets true by default for a --no- flag: only an explicit --no-backup-before-migrate counts.
      backupBeforeMigrate: opts.backupBeforeMigrate === false ? false : undefined,
      databaseUrl: opts.database, databasePoolSize: opts.databasePoolSize, databaseStatementTimeout: opts.databaseStatementTimeout,
      webhookLeaseSeconds: opts.webhookLeaseSeconds,
    }, ctx.env, VERSION);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  // STARTTLS files are read at listener start: check them now, as a config error naming the setting.
  const { checkTlsFiles } = await import('../../server/tls-files.js');
  const tls = opts.printConfig ? null : checkTlsFiles(config.tlsCert, config.tlsKey);
  if (tls) throw new UsageError(new ConfigError(tls.field, tls.message).message);
  if (opts.printConfig) {
    ctx.out.printJson(printableConfig(config));
    return;
  }

  // Before the server loads: V8 reads these as the heaps grow and as threads start (server/memory.ts).
  const { applyDaemonHeapSettings } = await import('../../server/memory.js');
  applyDaemonHeapSettings();
  const { Daemon, DataDirLocked } = await import('../../server/daemon.js');
  let daemon: Awaited<ReturnType<typeof Daemon.create>>;
  try {
    // The first-run setup waits until every port is bound: a port in use leaves the data dir
    // uninitialised, and the next start that succeeds prints the keys and saves the profile.
    daemon = await Daemon.create(config, { bootstrapOnStart: true });
  } catch (err) {
    // A second daemon on the same data directory: exit 1 naming the first (server/data-lock.ts).
    if (err instanceof DataDirLocked) throw new CliError(err.message);
    throw err;
  }
  let addr: { http: string; smtp: string | null };
  try {
    addr = await daemon.start();
  } catch (err) {
    await daemon.stop();
    const e = err as NodeJS.ErrnoException & { port?: number; address?: string };
    if (e.code === 'EADDRINUSE' || e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL') {
      throw new CliError(await listenFailure(e, config));
    }
    throw err;
  }

  const say = announcer(ctx);
  installShutdown(ctx, daemon, say);

  // Where this machine's CLI reaches the daemon (what profiles save): the bound address, never the
  // public URL — a proxy's or DNS name may not answer from here (a name not set up yet broke the
  // saved profile). Where people reach it (the web inbox link): the public URL.
  const local = dialable(addr.http);
  const base = config.port === 0 ? local : dialable(config.publicUrl);
  if (daemon.bootstrapped) {
    // Same bootstrap as `init`; keys go to stderr so stdout stays clean for scripts.
    const b = daemon.bootstrapped;
    if (say.json) {
      say.line(`Initialised ${config.dataDir}; these keys are shown once: only their hashes are stored`, {
        data_dir: config.dataDir, workspace: b.workspace.slug, workspace_id: b.workspace.id, agent: b.agent.email, live_key: b.keys.live.key, test_key: b.keys.test.key,
      });
    } else {
      ctx.out.stderr.write(`Initialised ${config.dataDir}.\n`);
      printKeys(ctx.out, b, 'stderr');
    }
    const profile = ctx.globals.profile ?? (ctx.env.MAILAGENT_PROFILE || DEFAULT_PROFILE);
    try {
      const saved = saveNewProfile(profile, {
        base_url: local,
        live_key: daemon.bootstrapped.keys.live.key,
        test_key: daemon.bootstrapped.keys.test.key,
        ...profileOwner(config),
      }, ctx.env);
      say.line(savedProfileText(saved, profile));
    } catch (err) {
      say.warn(`could not save the CLI profile: ${(err as Error).message}`);
    }
  } else {
    // Started again on other ports (or --port 0): the local profiles of this data (dir or database) follow.
    try {
      const moved = repointProfiles(config, local, ctx.env);
      for (const m of moved.names) say.line(`Profile "${m.name}" in ${moved.file} now points at this daemon (was ${m.was}).`);
    } catch (err) {
      say.warn(`could not update the CLI profiles: ${(err as Error).message}`);
    }
  }
  const keyed = !daemon.bootstrapped && !ctx.env.MAILAGENT_API_KEY && !profileHoldsKeysFor(config, ctx.env)
    // Saved for another path (a restored or moved copy of the data dir): a profile whose key
    // authenticates against this database holds its keys all the same.
    ? await profileWhoseKeysWork(ctx.env, (key) => daemon.acceptsKey(key)) : undefined;
  if (keyed) {
    say.line(`Profile "${keyed.name}" in ${configPath(ctx.env)} holds keys of this data (it was saved for ${keyed.savedFor ?? 'another data dir'}).`);
  } else if (keyed === null) {
    // Initialised earlier, but no profile here has its keys (shown once, only hashes stored):
    // say how to get one instead of leaving the operator with a daemon nobody can call.
    const pg = config.database.kind === 'postgres';
    say.line(`${describeLocation(config)} is already initialised, but no CLI profile in ${configPath(ctx.env)} holds its keys; `
      + `make one with \`mailagent admin keys create ${pg ? 'with the same MAILAGENT_DATABASE_URL' : `--data-dir ${config.dataDir}`}\` (prints a new key once).`);
  }
  // The web inbox, with a one-time sign-in link for the local owner (docs/web.md).
  // The link is a credential: printed to a terminal, or on the first run (whose keys are printed
  // just above anyway), never into a service's log on every restart (journald keeps it).
  say.line(`Web inbox: ${base}/`, { web_inbox: `${base}/` });
  if (ctx.out.stderr.isTTY || daemon.bootstrapped) {
    const link = await daemon.ownerSignInUrl(base).catch(() => null);
    if (link) say.line(`  sign in once with ${link} (valid 10 minutes; \`mailagent ui\` makes another)`);
  } else {
    say.line('  `mailagent ui` prints a one-time sign-in link');
  }
  const smtp = addr.smtp ? `SMTP ${addr.smtp}` : 'SMTP listener not enabled';
  // The one ready line (test helpers and the benchmark wait for it).
  say.line(`mailagent ${VERSION} ready: API ${addr.http} · ${smtp} · data ${config.dataDir}`, { api: addr.http, smtp: addr.smtp, data_dir: config.dataDir });
}

/** What `serve` says on stderr besides the log: plain lines, or log-shaped JSON records. */
interface Announcer {
  json: boolean;
  line(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/**
 * With `MAILAGENT_LOG_FORMAT=json` every line on stderr is JSON (a log shipper parses each): the
 * start-up and shutdown lines are written as records shaped like the log's (pino's `level`,
 * `time`, `pid`, `hostname`, `msg`), whatever the log level — the ready line must always appear.
 * Otherwise plain lines, as before (also when the format is JSON only because stderr is not a
 * terminal: docs/cli.md → serve).
 */
function announcer(ctx: CommandContext): Announcer {
  if (ctx.env.MAILAGENT_LOG_FORMAT !== 'json') {
    return {
      json: false,
      line: (msg) => ctx.out.stderr.write(msg + '\n'),
      warn: (msg) => ctx.out.warn(msg),
      error: (msg) => ctx.out.stderr.write(`error: ${msg}\n`),
    };
  }
  const host = hostname();
  const record = (level: number, msg: string, fields: Record<string, unknown> = {}) =>
    ctx.out.stderr.write(JSON.stringify({ level, time: Date.now(), pid: process.pid, hostname: host, ...fields, msg: msg.trim() }) + '\n');
  return { json: true, line: (msg, fields) => record(30, msg, fields), warn: (msg) => record(40, msg), error: (msg) => record(50, msg) };
}

/** Whether some CLI profile was saved for this data (dir or database) with a key in it. */
function profileHoldsKeysFor(at: DataLocation, env: NodeJS.ProcessEnv): boolean {
  try {
    return Object.values(readConfigFile(configPath(env)).profiles).some((p) => profileIsFor(p, at) && !!(p.live_key || p.test_key));
  } catch {
    return true; // an unreadable CLI config: say nothing rather than something wrong
  }
}

/** The first CLI profile with a key that `works` (null: none; an unreadable config counts as none). */
async function profileWhoseKeysWork(env: NodeJS.ProcessEnv, works: (key: string) => Promise<boolean>): Promise<{ name: string; savedFor: string | null } | null> {
  let profiles: Record<string, Profile>;
  try {
    profiles = readConfigFile(configPath(env)).profiles;
  } catch {
    return null;
  }
  for (const [name, p] of Object.entries(profiles)) {
    for (const key of [p.live_key, p.test_key]) if (key && await works(key)) return { name, savedFor: p.database ?? p.data_dir ?? null };
  }
  return null;
}

/**
 * One friendly line for a port that cannot be bound, saying which listener, which port, and
 * whether the program already there is a mailagent (its health route or SMTP banner answers).
 */
async function listenFailure(e: NodeJS.ErrnoException & { port?: number; address?: string }, config: { host: string; port: number; smtpHost: string; smtpPort: number }): Promise<string> {
  const port = e.port ?? Number(/:(\d+)\s*$/.exec(e.message)?.[1] ?? NaN);
  const which = port === config.smtpPort ? { name: 'SMTP', flag: '--smtp-port', host: config.smtpHost } : { name: 'HTTP', flag: '--port', host: config.host };
  const host = which.host === '0.0.0.0' || which.host === '::' ? '127.0.0.1' : which.host;
  if (e.code !== 'EADDRINUSE') return `cannot listen on ${which.host}:${port} for ${which.name}: ${e.code} (choose another ${which.flag} or --host)`;
  const who = await identifyListener(host, port, which.name === 'SMTP');
  return `cannot listen on ${which.host}:${port} for ${which.name}: the port is in use${who ? ` by ${who}` : ''} (stop it, or choose another ${which.flag}; --port 0 / --smtp-port 0 pick free ones)`;
}

/** "another mailagent (…)" when the program on the port is one, else null. Bounded to 1 s. */
async function identifyListener(host: string, port: number, smtp: boolean): Promise<string | null> {
  const h = host.includes(':') ? `[${host}]` : host;
  if (!smtp) {
    try {
      const res = await fetch(`http://${h}:${port}/v1/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json().catch(() => null)) as { version?: string; service?: string } | null;
      return res.headers.get('x-request-id')?.startsWith('req_') && body ? `another mailagent${body.version ? ` ${body.version}` : ''} (http://${h}:${port})` : null;
    } catch {
      return null;
    }
  }
  const { connect } = await import('node:net');
  return new Promise((resolve) => {
    const sock = connect({ host, port });
    const done = (v: string | null) => { sock.destroy(); resolve(v); };
    sock.setTimeout(1000, () => done(null));
    sock.on('error', () => done(null));
    sock.once('data', (d) => done(/ESMTP mailagent\b/.test(d.toString('latin1')) ? `another mailagent (its SMTP banner answers on ${host}:${port})` : null));
  });
}

function installShutdown(ctx: CommandContext, daemon: { stop(): Promise<void> }, say: Announcer): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second Ctrl-C: exit at once, no draining.
      say.warn('forced exit');
      process.exit(EXIT.interrupted);
    }
    stopping = true;
    say.line(`${signal}: shutting down (finishing in-flight requests; Ctrl-C again to force)`);
    daemon.stop().then(
      () => {
        say.line('stopped');
        process.exitCode = EXIT.ok;
        // Anything still holding the loop (an idle keep-alive socket) must not keep us alive.
        setTimeout(() => process.exit(EXIT.ok), 2000).unref();
      },
      (err: unknown) => {
        say.error(`shutdown failed: ${(err as Error).message}`);
        process.exit(EXIT.error);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
