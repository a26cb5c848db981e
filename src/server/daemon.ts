import type { AddressInfo } from 'node:net';
import { openDatabase, migrate, isInitialised, type OpenedDb } from '../db/open.js';
import { systemClock, type Clock } from '../shared/clock.js';
import type { AppContext } from '../services/context.js';
import { bootstrapWorkspace, type BootstrapInput, type BootstrapResult } from '../services/bootstrap.js';
import type { Config } from './config.js';
import { createContext } from './context.js';
import { buildApp, type HttpApp } from './http/app.js';
import { createWorkers, type Worker } from './workers/index.js';
import { startSmtpListener } from './smtp/listener.js';
import { acquireDataLock, type DataLock } from './data-lock.js';
import { logMessages } from './message-log.js';

/**
 * The log stream: human-readable lines on a terminal (pino-pretty), JSON lines otherwise (a
 * file, journald, a log shipper), as `MAILAGENT_LOG_FORMAT=json|pretty` can force.
 */
async function logStream(env: NodeJS.ProcessEnv = process.env): Promise<NodeJS.WritableStream> {
  const format = env.MAILAGENT_LOG_FORMAT ?? (process.stderr.isTTY ? 'pretty' : 'json');
  if (format !== 'pretty') return process.stderr;
  const { default: pretty } = await import('pino-pretty');
  return pretty({ destination: 2, sync: true, colorize: !env.NO_COLOR, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,reqId' });
}

export { DataDirLocked } from './data-lock.js';

export interface DaemonOptions {
  clock?: Clock;
  /** Silence fastify's logger (tests). */
  quiet?: boolean;
}

/** A listener started with the daemon (the SMTP server); stop() closes it and drains sessions. */
export interface Listener {
  name: string;
  address(): string;
  stop(): Promise<void>;
}

/**
 * The composition root. create(): open the database → migrate → bootstrap an empty data dir →
 * context → HTTP app. start(): workers → SMTP → HTTP. stop(): the reverse, draining in-flight work.
 */
export class Daemon {
  private workers: Worker[] = [];
  private listeners: Listener[] = [];
  private stopping: Promise<void> | null = null;

  private constructor(
    readonly config: Config,
    readonly ctx: AppContext,
    readonly app: HttpApp,
    private readonly opened: OpenedDb,
    /** Set when this start initialised an empty data dir: the keys, shown once. */
    readonly bootstrapped: BootstrapResult | null,
    private readonly lock: DataLock,
  ) {}

  static async create(config: Config, opts: DaemonOptions = {}): Promise<Daemon> {
    // One daemon per data directory (server/data-lock.ts): throws DataDirLocked naming the other.
    const lock = acquireDataLock(config.dataDir);
    let opened: OpenedDb;
    try {
      opened = openDatabase(config.dbFile);
    } catch (err) {
      lock.release();
      throw err;
    }
    try {
      await migrate(opened.db);
      const ctx = createContext(config, opened.db, opts.clock ?? systemClock);
      const bootstrapped = (await isInitialised(opened.db)) ? null : await bootstrapWorkspace(ctx, {});
      const app = await buildApp(ctx, {
        logger: opts.quiet || config.logLevel === 'silent' ? false : { level: config.logLevel, stream: await logStream() },
        // Per-request lines only at debug: at info the log is one line per message (logMessages).
        requestLogging: config.logLevel === 'debug',
      });
      if (!opts.quiet) ctx.log = app.log;
      logMessages(ctx);
      return new Daemon(config, ctx, app, opened, bootstrapped, lock);
    } catch (err) {
      await opened.close();
      lock.release();
      throw err;
    }
  }

  /** Start everything; resolves with the bound addresses once the daemon can serve. */
  async start(): Promise<{ http: string; smtp: string | null }> {
    try {
      this.workers = createWorkers(this.ctx);
      for (const w of this.workers) w.start();
      this.listeners = await startListeners(this.ctx, this.config);
      await this.app.listen({ host: this.config.host, port: this.config.port });
    } catch (err) {
      // A port in use must not leave workers or the SMTP listener running behind the error.
      await this.stop();
      throw err;
    }
    const addr = { http: this.httpUrl(), smtp: this.listeners.find((l) => l.name === 'smtp')?.address() ?? null };
    this.lock.update({ api: addr.http, smtp: addr.smtp });
    return addr;
  }

  httpUrl(): string {
    const a = this.app.server.address() as AddressInfo;
    const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    return `http://${host}:${a.port}`;
  }

  /** Stop accepting, drain in-flight requests and sessions (bounded), close the database. Idempotent. */
  stop(timeoutMs = 10_000): Promise<void> {
    this.stopping ??= (async () => {
      const drain = (async () => {
        await this.app.close();
        await Promise.allSettled(this.listeners.map((l) => l.stop()));
        await Promise.allSettled(this.workers.map((w) => w.stop()));
      })();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([drain, new Promise((r) => { timer = setTimeout(r, timeoutMs); timer.unref(); })]);
      clearTimeout(timer);
      await this.opened.close();
      this.lock.release();
    })();
    return this.stopping;
  }
}

/**
 * `mailagent init`: create and migrate the database, then bootstrap it. Resolves null (and
 * writes nothing) when the data dir already holds a workspace.
 */
export async function initialiseDataDir(config: Config, input: BootstrapInput, opts: DaemonOptions = {}): Promise<BootstrapResult | null> {
  const opened = openDatabase(config.dbFile);
  try {
    await migrate(opened.db);
    if (await isInitialised(opened.db)) return null;
    return await bootstrapWorkspace(createContext(config, opened.db, opts.clock ?? systemClock), input);
  } finally {
    await opened.close();
  }
}

/** Listeners beside HTTP: the inbound SMTP listener on config.smtpHost:config.smtpPort. */
async function startListeners(ctx: AppContext, config: Config): Promise<Listener[]> {
  const smtp = await startSmtpListener(ctx, {
    host: config.smtpHost, port: config.smtpPort, maxMessageBytes: config.smtpMaxMessageBytes,
    tlsCert: config.tlsCert, tlsKey: config.tlsKey, trustedNetworks: config.trustedNetworks,
  });
  return [smtp];
}
