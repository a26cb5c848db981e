import type { AddressInfo } from 'node:net';
import { openDatabase, migrate, isInitialised, type OpenedDb } from '../db/open.js';
import { migrateWithBackup } from './upgrade.js';
import { createOps, registerRuntimeChecks, type FreeSpaceFn, type Ops } from './ops/index.js';
import { startMetricsListener } from './ops/metrics-listener.js';
import { systemClock, type Clock } from '../shared/clock.js';
import type { AppContext } from '../services/context.js';
import { bootstrapWorkspace, type BootstrapInput, type BootstrapResult } from '../services/bootstrap.js';
import type { Config } from './config.js';
import { createContext } from './context.js';
import { buildApp, type HttpApp } from './http/app.js';
import { createWorkers, type Worker } from './workers/index.js';
import { startSmtpListener } from './smtp/listener.js';

export interface DaemonOptions {
  clock?: Clock;
  /** Silence fastify's logger (tests). */
  quiet?: boolean;
  /** Free space of the data dir's filesystem (tests simulate a full disk). */
  freeSpace?: FreeSpaceFn;
}

/** A listener started with the daemon (the SMTP server); stop() closes it and drains sessions. */
export interface Listener {
  name: string;
  address(): string;
  listening?(): boolean;
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
    /** Metrics, readiness checks (others may register theirs) and the low-disk guard. */
    readonly ops: Ops,
    /** The copy taken before this start applied migrations, if any. */
    readonly preMigrateBackup: string | null = null,
  ) {}

  static async create(config: Config, opts: DaemonOptions = {}): Promise<Daemon> {
    const opened = openDatabase(config.dbFile);
    try {
      const upgrade = await migrateWithBackup(opened, config);
      const ctx = createContext(config, opened.db, opts.clock ?? systemClock);
      const bootstrapped = (await isInitialised(opened.db)) ? null : await bootstrapWorkspace(ctx, {});
      const ops = createOps(ctx, config, { freeSpace: opts.freeSpace });
      const app = await buildApp(ctx, {
        logger: opts.quiet || config.logLevel === 'silent' ? false : { level: config.logLevel, stream: process.stderr },
        ops,
      });
      if (!opts.quiet) ctx.log = app.log;
      return new Daemon(config, ctx, app, opened, bootstrapped, ops, upgrade.backup);
    } catch (err) {
      await opened.close();
      throw err;
    }
  }

  /** Start everything; resolves with the bound addresses once the daemon can serve. */
  async start(): Promise<{ http: string; smtp: string | null }> {
    try {
      this.workers = createWorkers(this.ctx, { retention: this.config.retention });
      for (const w of this.workers) w.start();
      this.listeners = await startListeners(this.ctx, this.config, this.ops);
      await this.app.listen({ host: this.config.host, port: this.config.port });
      const http = { name: 'http', address: () => this.httpUrl(), listening: () => this.app.server.listening };
      registerRuntimeChecks(this.ops, {
        listeners: [http, ...this.listeners].map((l) => ({ name: l.name, address: () => l.address(), listening: () => l.listening?.() ?? true })),
        workers: this.workers, isRunning: () => !this.stopping,
      });
    } catch (err) {
      // A port in use must not leave workers or the SMTP listener running behind the error.
      await this.stop();
      throw err;
    }
    return { http: this.httpUrl(), smtp: this.listeners.find((l) => l.name === 'smtp')?.address() ?? null };
  }

  /** The address a started listener is bound to ('smtp', 'metrics'), or null. */
  listenerAddress(name: string): string | null {
    return this.listeners.find((l) => l.name === name)?.address() ?? null;
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
      this.ops.metrics.close();
      await this.opened.close();
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
async function startListeners(ctx: AppContext, config: Config, ops: Ops): Promise<Listener[]> {
  const listeners: Listener[] = [];
  listeners.push(await startSmtpListener(ctx, {
    host: config.smtpHost, port: config.smtpPort, maxMessageBytes: config.smtpMaxMessageBytes,
    tlsCert: config.tlsCert, tlsKey: config.tlsKey, disk: ops.disk, observer: ops.metrics.smtpObserver(),
  }));
  try {
    if (config.metricsListen) listeners.push(await startMetricsListener(ops, config.metricsListen.host, config.metricsListen.port));
  } catch (err) {
    await Promise.allSettled(listeners.map((l) => l.stop()));
    throw err;
  }
  return listeners;
}
