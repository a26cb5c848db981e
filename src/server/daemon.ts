import type { AddressInfo } from 'node:net';
import { createOwnerLink } from '../services/web-sessions.js';
import { keyIsValid } from '../services/auth.js';
import { signInUrl } from './http/routes/web.js';
import { openDatabase, migrate, isInitialised, checkpointOffThread, type OpenedDb } from '../db/open.js';
import { migrateWithBackup } from './upgrade.js';
import { DiskGuard } from './ops/disk-guard.js';
import { createOps, registerRuntimeChecks, type FreeSpaceFn, type Ops } from './ops/index.js';
import { startMetricsListener } from './ops/metrics-listener.js';
import { systemClock, type Clock } from '../shared/clock.js';
import type { AppContext } from '../services/context.js';
import { bootstrapWorkspace, type BootstrapInput, type BootstrapResult } from '../services/bootstrap.js';
import { redact, type Config } from './config.js';
import { createContext } from './context.js';
import { buildApp, warmUpApp, type HttpApp } from './http/app.js';
import { createWorkers, type Worker } from './workers/index.js';
import { sweepOrphanBlobs } from '../db/repos/blob-sweep.js';
import { startSmtpListener } from './smtp/listener.js';
import { createPipeline, type Pipeline } from './pipeline/index.js';
import { startEventRelay, type EventRelay } from './event-relay.js';
import { configureEventStream } from '../services/event-stream.js';
import { acquireDataLock, type DataLock } from './data-lock.js';
import { logMessages } from './message-log.js';
import { growMainYoungGeneration, stopMainYoungGrowth, threadsOnline } from './memory.js';
import type { Logger } from '../shared/log.js';

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

/** ctx.log as it is when a line is written (the pipeline starts before the HTTP app's logger replaces the first one). */
function currentLog(ctx: AppContext): Logger {
  return {
    info: (o, m) => ctx.log.info(o, m), warn: (o, m) => ctx.log.warn(o, m), error: (o, m) => ctx.log.error(o, m), debug: (o, m) => ctx.log.debug(o, m),
  };
}

export interface DaemonOptions {
  clock?: Clock;
  /** Silence fastify's logger (tests). */
  quiet?: boolean;
  /** Free space of the data dir's filesystem (tests simulate a full disk). */
  freeSpace?: FreeSpaceFn;
  /**
   * Initialise an empty data dir in start(), once every port is bound, instead of in create()
   * (`serve`: a port in use must leave the data dir untouched, so the next start that succeeds
   * prints the keys and saves the profile).
   */
  bootstrapOnStart?: boolean;
  /** The pool workers' entry (tests: one that cannot start). */
  pipelineWorkerUrl?: URL;
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
  private relay: EventRelay | null = null;
  private warmup: { stop(): void } | null = null;
  private stopping: Promise<void> | null = null;
  private boot: BootstrapResult | null;

  private constructor(
    readonly config: Config,
    readonly ctx: AppContext,
    readonly app: HttpApp,
    private readonly opened: OpenedDb,
    bootstrapped: BootstrapResult | null,
    /** The worker pool for parsing and classification (ctx.work). */
    readonly pipeline: Pipeline,
    /** Metrics, readiness checks (others may register theirs) and the low-disk guard. */
    readonly ops: Ops,
    /** The copy taken before this start applied migrations, if any. */
    readonly preMigrateBackup: string | null,
    private readonly lock: DataLock,
    private readonly bootstrapOnStart: boolean,
  ) {
    this.boot = bootstrapped;
  }

  /** Set when this daemon initialised an empty data dir (in create(), or in start() with bootstrapOnStart): the keys, shown once. */
  get bootstrapped(): BootstrapResult | null {
    return this.boot;
  }

  static async create(config: Config, opts: DaemonOptions = {}): Promise<Daemon> {
    // One daemon per data directory (server/data-lock.ts): throws DataDirLocked naming the other.
    const lock = acquireDataLock(config.dataDir);
    let opened: OpenedDb;
    try {
      opened = openDatabase(config.database);
    } catch (err) {
      lock.release();
      throw err;
    }
    let pipeline: Pipeline | null = null;
    try {
      const upgrade = await migrateWithBackup(opened, config);
      const ctx = createContext(config, opened.db, opts.clock ?? systemClock);
      // Blob pieces a killed daemon left between the writer's commit and the row's (db/repos/blob-sweep.ts): before anything serves.
      const swept = await sweepOrphanBlobs(opened.db);
      // The long-lived threads start first, and the main thread waits, idle, until they are online
      // before it loads the HTTP server: V8 resets the young-generation hold at each thread's start,
      // and a scavenge in that moment would double the main thread's new space (server/memory.ts).
      // WAL checkpoints on a worker thread, not inside the main thread's COMMITs (db/checkpointer.ts).
      const checkpointerHeap = checkpointOffThread(opened);
      // Parsing and classification leave the main thread (src/server/pipeline); the workers load
      // while the rest boots, and a worker that cannot start fails the boot below. Their log is
      // the daemon's (app.log, once built), looked up when they write.
      pipeline = createPipeline({ workers: config.pipelineWorkers, budgetMs: config.pipelineBudgetMs, log: currentLog(ctx), workerUrl: opts.pipelineWorkerUrl });
      await threadsOnline();
      configureEventStream(ctx, {
        maxStreams: config.limits.sseMaxStreams, maxStreamsPerKey: config.limits.sseMaxStreamsPerKey, maxBufferedBytes: config.limits.sseMaxBufferedBytes,
      });
      const bootstrapped = opts.bootstrapOnStart || (await isInitialised(opened.db)) ? null : await bootstrapWorkspace(ctx, {});
      const ops = createOps(ctx, config, { freeSpace: opts.freeSpace });
      const app = await buildApp(ctx, {
        logger: opts.quiet || config.logLevel === 'silent' ? false : { level: config.logLevel, stream: await logStream() },
        // Per-request lines only at debug: at info the log is one line per message (logMessages).
        requestLogging: config.logLevel === 'debug',
        trustProxy: config.trustedProxies,
        ops,
        maxBufferedBodyBytes: config.limits.httpMaxBufferedBodyBytes,
      });
      if (!opts.quiet) ctx.log = app.log;
      // What an upgrade did to the database, in the log (traceable afterwards; a new database says nothing).
      if (upgrade.upgraded) ctx.log.info({ migrations: upgrade.applied, backup: upgrade.backup }, upgrade.backup ? `database migrated; the copy taken before is ${upgrade.backup}` : 'database migrated');
      if (swept.deleted.length) ctx.log.warn({ blobs: swept.deleted.length, checked: swept.checked }, 'deleted attachment blobs no sent message or draft named (left by a daemon stopped mid-write)');
      logMessages(ctx, config.logLevel);
      await pipeline.ready();
      ctx.work = pipeline.work;
      const pool = pipeline;
      ops.metrics.addThreads(async () => (await pool.heap()).map((heap, i) => ({ thread: `pipeline-${i}`, heap })));
      if (checkpointerHeap) ops.metrics.addThreads(async () => [{ thread: 'checkpointer', heap: await checkpointerHeap() }]);
      return new Daemon(config, ctx, app, opened, bootstrapped, pipeline, ops, upgrade.backup, lock, opts.bootstrapOnStart ?? false);
    } catch (err) {
      await pipeline?.close();
      await opened.close();
      lock.release();
      throw err;
    }
  }

  /** Start everything; resolves with the bound addresses once the daemon can serve. */
  async start(): Promise<{ http: string; smtp: string | null }> {
    try {
      // Several daemons on one PostgreSQL: the bus hears every daemon's events (before any
      // worker or stream subscribes to it).
      this.relay = await startEventRelay(this.ctx, this.config.database);
      this.workers = createWorkers(this.ctx, { retention: this.config.retention, webhookLeaseMs: this.config.webhookLeaseMs });
      for (const w of this.workers) w.start();
      this.listeners = await startListeners(this.ctx, this.config, this.ops);
      await this.app.listen({ host: this.config.host, port: this.config.port });
      // Route validators compile in idle turns from a second on, not inside each route's first request.
      this.warmup = warmUpApp(this.app);
      // Loaded and serving: the main thread's new space may grow to its serving size (server/memory.ts).
      growMainYoungGeneration();
      // On port 0 the default public URL (http://host:0) names no port anyone can reach: every
      // link handed out (raw_url, unsubscribe, billing) would be dead. Use the port we really got.
      if (this.config.port === 0 && /:0$/.test(this.ctx.config.publicUrl)) {
        const port = (this.app.server.address() as AddressInfo).port;
        this.ctx.config = Object.freeze({ ...this.ctx.config, publicUrl: this.ctx.config.publicUrl.replace(/:0$/, `:${port}`) });
      }
      const http = { name: 'http', address: () => this.httpUrl(), listening: () => this.app.server.listening };
      registerRuntimeChecks(this.ops, {
        listeners: [http, ...this.listeners].map((l) => ({ name: l.name, address: () => l.address(), listening: () => l.listening?.() ?? true })),
        workers: this.workers, isRunning: () => !this.stopping,
      });
      if (this.bootstrapOnStart && !(await isInitialised(this.ctx.db))) this.boot = await bootstrapWorkspace(this.ctx, {});
    } catch (err) {
      // A port in use must not leave workers or the SMTP listener running behind the error.
      await this.stop();
      throw err;
    }
    const addr = { http: this.httpUrl(), smtp: this.listeners.find((l) => l.name === 'smtp')?.address() ?? null };
    // The relay in use (password redacted) for `doctor`, which cannot see this process's flags.
    this.lock.update({ api: addr.http, smtp: addr.smtp, relay: this.config.relayUrl ? redact(this.config.relayUrl) : null, public_url: this.config.publicUrl });
    // Starting below the low-disk guard: the daemon serves reads but refuses mail and sends; say so
    // now rather than at the first refusal.
    const disk = await this.ops.disk.check();
    if (!disk.ok) this.ctx.log.warn({ data_dir: this.config.dataDir }, `low disk space: ${DiskGuard.describe(disk)}; inbound SMTP answers 452 and sends are refused until space is freed (or lower --min-free-disk-mb)`);
    return addr;
  }

  /** A one-time link signing the local owner in to the web inbox at `base` (printed by `serve`); null without an owner key. */
  async ownerSignInUrl(base: string): Promise<string | null> {
    const link = await createOwnerLink(this.ctx);
    return link ? signInUrl(base, link.token) : null;
  }

  /** Whether `key` authenticates against this daemon's database (serve's check of the CLI profiles). */
  acceptsKey(key: string): Promise<boolean> {
    return keyIsValid(this.ctx, key);
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
      this.warmup?.stop();
      stopMainYoungGrowth();
      const drain = (async () => {
        await this.app.close();
        await Promise.allSettled(this.listeners.map((l) => l.stop()));
        await Promise.allSettled(this.workers.map((w) => w.stop()));
        await this.relay?.stop();
      })();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([drain, new Promise((r) => { timer = setTimeout(r, timeoutMs); timer.unref(); })]);
      clearTimeout(timer);
      // After the listeners drained: their in-flight messages still needed the pool.
      await this.pipeline.close();
      this.ops.metrics.close();
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
  const opened = openDatabase(config.database);
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
    tlsCert: config.tlsCert, tlsKey: config.tlsKey, trustedNetworks: config.trustedNetworks,
    maxClients: config.limits.smtpMaxClients,
    socketTimeoutMs: config.limits.smtpIdleTimeoutSeconds * 1000,
    limits: {
      maxConnectionsPerAddress: config.limits.smtpMaxConnectionsPerAddress,
      maxCommandsWithoutProgress: config.limits.smtpMaxCommandsWithoutProgress,
      maxSessionMs: config.limits.smtpMaxSessionSeconds * 1000,
    },
    disk: ops.disk, observer: ops.metrics.smtpObserver(),
    // Acknowledge after a durable raw store, process right after (docs/inbound.md → Durability).
    // The lease (several daemons on PostgreSQL) outlasts one message's worst case: four pool
    // budgets plus DNS.
    queue: config.limits.smtpMaxQueuedMessages > 0
      ? {
        maxDepth: config.limits.smtpMaxQueuedMessages, leaseMs: Math.max(60_000, 6 * config.pipelineBudgetMs + config.smtpProcessingDelayMs),
        file: config.database.kind === 'sqlite' ? config.database.file : null, maxDelayMs: config.smtpProcessingDelayMs,
      }
      : undefined,
  }));
  try {
    if (config.metricsListen) listeners.push(await startMetricsListener(ops, config.metricsListen.host, config.metricsListen.port));
  } catch (err) {
    await Promise.allSettled(listeners.map((l) => l.stop()));
    throw err;
  }
  return listeners;
}
