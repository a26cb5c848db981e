import { promises as dns } from 'node:dns';
import { accessSync, constants, existsSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import { openDatabase, migrationState, isInitialised, schemaProblems } from '../db/open.js';
import { schemaDrift } from '../db/migrator.js';
import { migrations } from '../db/migrations/index.js';
import { driftAdvice } from './upgrade.js';
import { firstWorkspace } from '../db/repos/workspaces.js';
import { listDomains } from '../db/repos/domains.js';
import { toDomain } from '../services/domains.js';
import { systemClock } from '../shared/clock.js';
import { redact, type Config } from './config.js';
import { createContext } from './context.js';
import { DiskGuard, statfsFreeSpace, type FreeSpaceFn } from './ops/disk-guard.js';
import { runningDaemon } from './data-lock.js';
import { checkTlsFiles } from './tls-files.js';

/** What to do about a database doctor cannot open or read. */
function databaseFix(err: Error & { code?: string }, config: Config): string {
  const m = `${err.code ?? ''} ${err.message}`;
  if (/CORRUPT|NOTADB|malformed|not a database/i.test(m)) {
    return `the file is damaged: stop the daemon and restore the newest good copy (mailagent restore FILE --data-dir ${config.dataDir} --yes; copies are in ${join(config.dataDir, 'backups')} and wherever \`mailagent backup\` writes yours)`;
  }
  if (/CANTOPEN|READONLY|PERM|unable to open|readonly|EACCES/i.test(m)) {
    return `give the service user read and write access to ${config.dataDir} and ${config.dbFile} (SQLite writes -wal/-shm files beside it), and check the filesystem is not mounted read-only`;
  }
  return 'run the mailagent version that wrote it, or restore a backup (mailagent restore)';
}

export interface DoctorCheck {
  check: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  /** What to do about it (warn/fail). */
  fix?: string;
}

/** DNS as the doctor needs it; tests inject one so they stay offline. */
export interface DoctorResolver {
  txt(name: string): Promise<string[][]>;
  mx(name: string): Promise<{ exchange: string; priority: number }[]>;
}

export interface DoctorOptions {
  resolver?: DoctorResolver;
  freeSpace?: FreeSpaceFn;
  /** A reference time (ms) to compare the local clock with, or null when none can be had. */
  referenceTime?: () => Promise<number | null>;
  timeoutMs?: number;
  /** Ports given on the command line: checked as given, not replaced by the running daemon's. */
  explicitPorts?: { http?: boolean; smtp?: boolean };
}

const missing = (err: unknown) => ['ENOTFOUND', 'ENODATA', 'ENONAME'].includes((err as { code?: string }).code ?? '');

export const systemDoctorResolver: DoctorResolver = {
  txt: (n) => dns.resolveTxt(n).catch((e) => (missing(e) ? [] : Promise.reject(e))),
  mx: (n) => dns.resolveMx(n).catch((e) => (missing(e) ? [] : Promise.reject(e))),
};

/** The Date header of an HTTPS answer: good to about a second, enough to spot a skewed clock. */
export async function httpDateReference(url = 'https://www.cloudflare.com/', timeoutMs = 5000): Promise<number | null> {
  try {
    const res = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(timeoutMs) });
    const d = res.headers.get('date');
    return d ? Date.parse(d) : null;
  } catch {
    return null;
  }
}

/**
 * `mailagent doctor`: what stands between this configuration and a working service, each with
 * what to fix. Read-only: it writes one probe file in the data dir and removes it.
 */
export async function runDoctor(config: Config, opts: DoctorOptions = {}): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  const timeoutMs = opts.timeoutMs ?? 10_000;
  // A daemon running on this data dir (its lock) may have been started with other flags than this
  // process sees: its relay and public URL are what its DNS advice (SPF, MX) names.
  const running = runningDaemon(config.dataDir);
  const daemonConfig: Config = {
    ...config,
    relayUrl: running && running.relay !== undefined ? running.relay : config.relayUrl,
    publicUrl: running?.public_url ?? config.publicUrl,
  };

  // Data dir: exists and writable, the database opens, its schema is not from a newer binary.
  try {
    // Not created here: doctor only looks (and a recursive mkdir under /proc never returns on some kernels).
    if (!existsSync(config.dataDir)) throw Object.assign(new Error('does not exist'), { code: 'ENOENT' });
    accessSync(config.dataDir, constants.W_OK);
    const probe = join(config.dataDir, `.doctor-${process.pid}`);
    writeFileSync(probe, 'ok');
    rmSync(probe);
    out.push({ check: 'data dir', status: 'ok', detail: `${config.dataDir} is writable` });
  } catch (err) {
    out.push({ check: 'data dir', status: 'fail', detail: `${config.dataDir}: ${(err as Error).message}`, fix: 'create it (mailagent init --data-dir DIR) and give the service user write access (systemd: StateDirectory=mailagent does both)' });
  }
  // STARTTLS files: the same check `serve` runs before it starts (server/tls-files.ts).
  if (config.tlsCert && config.tlsKey) {
    const tls = checkTlsFiles(config.tlsCert, config.tlsKey);
    out.push(tls
      ? { check: 'smtp tls', status: 'fail', detail: `${tls.field}: ${tls.message}`, fix: `fix ${tls.field === 'tlsCert' ? '--tls-cert' : '--tls-key'} (or remove both to run SMTP without STARTTLS)` }
      : { check: 'smtp tls', status: 'ok', detail: `${config.tlsCert} and ${config.tlsKey} are a certificate and its key` });
  }
  const guard = new DiskGuard(config.dataDir, config.minFreeDiskBytes, opts.freeSpace ?? statfsFreeSpace, 0);
  const disk = await guard.check();
  out.push(disk.ok
    ? { check: 'disk', status: 'ok', detail: Number.isFinite(disk.freeBytes) ? DiskGuard.describe(disk) : config.minFreeDiskBytes > 0 ? 'free space unknown (the data dir cannot be examined)' : 'guard off' }
    : { check: 'disk', status: 'fail', detail: DiskGuard.describe(disk), fix: 'free space on the data dir\'s filesystem, set a retention policy (--retention-messages-days), or lower --min-free-disk-mb' });

  let domains: ReturnType<typeof toDomain>[] = [];
  // PostgreSQL: the server is always "there" (a connection failure is the check's failure).
  const where = config.database.kind === 'postgres' ? redact(config.database.url) : config.dbFile;
  if (config.database.kind === 'postgres' || existsSync(config.dbFile)) {
    let opened: ReturnType<typeof openDatabase> | null = null;
    try {
      // Inside the try: a file that cannot be opened (permissions, a read-only dir) or is damaged
      // throws here, and must be a failed check naming the file, not doctor's own crash.
      opened = openDatabase(config.database);
      const state = await migrationState(opened.db);
      const problems = await schemaProblems(opened.db);
      // A file left half-migrated (a start killed during a migration by a mailagent that ran
      // SQLite migrations without a transaction): every later start fails on it, so this fails
      // too, naming the copy to restore (server/upgrade.ts).
      const drift = state.pending.length && config.database.kind === 'sqlite' ? await schemaDrift(opened.db, migrations) : null;
      const advice = drift ? await driftAdvice(config.dbFile, config.dataDir, drift) : null;
      out.push(advice
        ? { check: 'database', status: 'fail', detail: advice.detail, fix: advice.fix }
        : problems.length
        ? { check: 'database', status: 'fail', detail: `${where}: ${problems.join('; ')}`, fix: 'run `mailagent serve` or `mailagent init` with this database: the migration step repairs it' }
        : state.pending.length
          ? { check: 'database', status: 'warn', detail: `${state.pending.length} migration(s) pending: ${state.pending.join(', ')}`, fix: 'they run at the next `mailagent serve` (a backup is taken first)' }
          : { check: 'database', status: 'ok', detail: `${where}, schema up to date (${state.applied.length} migrations)` });
      if (!state.pending.length && (await isInitialised(opened.db))) {
        const ws = await firstWorkspace(opened.db);
        const ctx = createContext(daemonConfig, opened.db, systemClock);
        domains = ws ? (await listDomains(opened.db, ws.id, { limit: 100 })).rows.map((r) => toDomain(ctx, r)) : [];
      }
    } catch (err) {
      out.push({ check: 'database', status: 'fail', detail: `${where}: ${(err as Error).message}`, fix: databaseFix(err as Error & { code?: string }, config) });
    } finally {
      await opened?.close();
    }
  } else {
    out.push({ check: 'database', status: 'warn', detail: `${config.dbFile} does not exist yet`, fix: 'it is created by `mailagent init` or the first `mailagent serve`' });
  }

  // Ports: free, or held by a mailagent that answers /v1/health. A daemon running on this data
  // dir (its lock) may listen elsewhere than the configuration says: check what it really uses.
  const hostPort = (addr: string | null) => {
    const m = addr ? /^(?:[a-z]+:\/\/)?\[?([^\]]*?)\]?:(\d+)$/i.exec(addr) : null;
    return m ? { host: m[1], port: Number(m[2]) } : null;
  };
  const httpAt = opts.explicitPorts?.http ? null : hostPort(running?.api ?? null);
  const smtpAt = opts.explicitPorts?.smtp ? null : hostPort(running?.smtp ?? null);
  if (running) out.push({ check: 'daemon', status: 'ok', detail: `mailagent PID ${running.pid} is running on this data dir (${[running.api && `API ${running.api}`, running.smtp && `SMTP ${running.smtp}`].filter(Boolean).join(', ') || 'still starting'})` });
  for (const [name, host, port] of [['http port', httpAt?.host ?? config.host, httpAt?.port ?? config.port], ['smtp port', smtpAt?.host ?? config.smtpHost, smtpAt?.port ?? config.smtpPort]] as const) {
    if (running && (name === 'http port' ? httpAt : smtpAt)) {
      const ours = name === 'http port' ? await answersHealth(host, port) : (await tryListen(host, port)) === 'EADDRINUSE';
      out.push(ours
        ? { check: name, status: 'ok', detail: `${host}:${port} is served by a running mailagent (this data dir's, PID ${running.pid})` }
        : { check: name, status: 'fail', detail: `the running mailagent (PID ${running.pid}) should listen on ${host}:${port}, but nothing answers there`, fix: 'restart the daemon (mailagent serve) and check its log' });
      continue;
    }
    if (port === 0) {
      out.push({ check: name, status: 'ok', detail: 'port 0: any free port' });
      continue;
    }
    const err = await tryListen(host, port);
    if (!err) out.push({ check: name, status: 'ok', detail: `${host}:${port} is free` });
    else if (err === 'EADDRINUSE') {
      const ours = name === 'http port' ? await answersHealth(host, port) : false;
      out.push(ours
        ? { check: name, status: 'ok', detail: `${host}:${port} is served by a running mailagent` }
        : { check: name, status: name === 'http port' ? 'fail' : 'warn', detail: `${host}:${port} is in use${name === 'smtp port' ? ' (by this daemon if one is running)' : ' by another program'}`, fix: `stop what listens there or choose another --${name === 'http port' ? 'port' : 'smtp-port'}` });
    } else {
      out.push({ check: name, status: 'fail', detail: `cannot listen on ${host}:${port}: ${err}`, fix: port < 1024 ? 'ports below 1024 need CAP_NET_BIND_SERVICE (systemd: AmbientCapabilities=CAP_NET_BIND_SERVICE)' : 'check --host/--smtp-host' });
    }
  }

  // Relay: connect and say EHLO. A running daemon's lock names the relay it really uses
  // (`serve --relay` is a flag this process never saw), its password redacted: EHLO needs none.
  const fromDaemon = running && running.relay !== undefined;
  const relayUrl = fromDaemon ? running.relay ?? null : config.relayUrl;
  const whose = fromDaemon ? `the running mailagent (PID ${running.pid})` : null;
  if (fromDaemon && redact(config.relayUrl ?? '') !== (relayUrl ?? '')) {
    out.push({ check: 'relay config', status: 'warn', detail: `${whose} ${relayUrl ? `sends through ${new URL(relayUrl).host}` : 'has no relay'}, but this configuration (flags, MAILAGENT_RELAY, config file) ${config.relayUrl ? `names ${new URL(config.relayUrl).host}` : 'names none'}: the relay below is the daemon's`, fix: 'restart the daemon with the relay you mean it to use' });
  }
  if (relayUrl) {
    try {
      const reply = await ehlo(relayUrl, timeoutMs);
      const u = new URL(relayUrl);
      if (u.protocol === 'smtp:' && u.username && !reply.starttls && u.searchParams.get('requireTLS') !== 'false') {
        out.push({ check: 'relay', status: 'fail', detail: `${u.host} answered EHLO but offers no STARTTLS: the daemon will not send the relay password in clear text, so live sends will fail`, fix: 'use smtps:// (port 465) or a relay port that offers STARTTLS (587)' });
      } else {
        out.push({ check: 'relay', status: 'ok', detail: `${u.host} answered EHLO: ${reply.first}${u.protocol === 'smtp:' ? (reply.starttls ? ' (offers STARTTLS)' : ' (no STARTTLS)') : ''}` });
      }
    } catch (err) {
      out.push({ check: 'relay', status: 'fail', detail: `${new URL(relayUrl).host}${whose ? ` (the relay of ${whose})` : ''}: ${(err as Error).message}`, fix: 'check the relay host, port and scheme (smtps:// for port 465, smtp:// for 587 with STARTTLS) and that outbound connections are allowed' });
    }
  } else {
    out.push({ check: 'relay', status: 'warn', detail: `no relay configured${whose ? ` in ${whose}` : ''}: live mail to outside addresses answers 503`, fix: 'set --relay smtps://user:pass@smtp.example.com:465' });
  }

  // DNS for each custom domain: what is published versus what is needed.
  const resolver = opts.resolver ?? systemDoctorResolver;
  for (const d of domains) {
    out.push(...await domainChecks(d, resolver, daemonConfig));
  }

  // Clock skew: signatures, tokens and schedules all assume a right clock.
  const ref = await (opts.referenceTime ?? (() => httpDateReference(undefined, timeoutMs)))();
  if (ref === null) out.push({ check: 'clock', status: 'warn', detail: 'no reference time reachable; skew not checked', fix: 'make sure NTP runs (timedatectl status)' });
  else {
    const skew = Math.round((Date.now() - ref) / 1000);
    out.push(Math.abs(skew) <= 30
      ? { check: 'clock', status: 'ok', detail: `${skew >= 0 ? '+' : ''}${skew} s from the reference` }
      : { check: 'clock', status: 'fail', detail: `the clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead' : 'behind'}`, fix: 'enable NTP: timedatectl set-ntp true' });
  }
  return out;
}

async function domainChecks(d: { domain: string; records: { purpose: string; name: string; value: string; note?: string | null }[] }, r: DoctorResolver, config: Config): Promise<DoctorCheck[]> {
  const out: DoctorCheck[] = [];
  const flat = async (name: string) => (await r.txt(name)).map((parts) => parts.join(''));
  const guard = async (check: string, fn: () => Promise<DoctorCheck>) => {
    try {
      out.push(await fn());
    } catch (err) {
      out.push({ check, status: 'warn', detail: `lookup failed: ${(err as Error).message}`, fix: 'check this host\'s DNS resolver' });
    }
  };
  const host = new URL(config.publicUrl).hostname;
  await guard(`${d.domain} MX`, async () => {
    const mx = await r.mx(d.domain);
    const found = mx.map((m) => `${m.priority} ${m.exchange}`).join(', ');
    return mx.length
      ? { check: `${d.domain} MX`, status: 'ok', detail: found }
      : { check: `${d.domain} MX`, status: 'warn', detail: 'no MX record: replies to this domain cannot reach mailagent', fix: `add: ${d.domain}. MX 10 ${host}.` };
  });
  for (const purpose of ['spf', 'dkim'] as const) {
    const rec = d.records.find((x) => x.purpose === purpose);
    if (!rec) continue;
    // No sending host to name (loopback-only install): nothing to compare, the record's note says why.
    if (purpose === 'spf' && rec.value.trim() === 'v=spf1 ~all') {
      out.push({ check: `${d.domain} SPF`, status: 'warn', detail: rec.note ?? 'no sending host to name', fix: 'configure --relay, or --public-url with this machine\'s internet name' });
      continue;
    }
    await guard(`${d.domain} ${purpose.toUpperCase()}`, async () => {
      const txt = await flat(rec.name);
      const needle = purpose === 'spf' ? rec.value.split(' ')[1] : rec.value.replace(/\s+/g, '');
      const have = txt.find((t) => (purpose === 'spf' ? t.startsWith('v=spf1') : t.startsWith('v=DKIM1')));
      const ok = have !== undefined && (purpose === 'spf' ? have.includes(needle) : have.replace(/\s+/g, '') === needle);
      return ok
        ? { check: `${d.domain} ${purpose.toUpperCase()}`, status: 'ok', detail: `${rec.name} TXT matches` }
        : { check: `${d.domain} ${purpose.toUpperCase()}`, status: 'fail', detail: have ? `${rec.name} TXT is "${have.slice(0, 120)}"` : `no ${purpose.toUpperCase()} record at ${rec.name}`, fix: `publish: ${rec.name}. TXT "${rec.value}"` };
    });
  }
  await guard(`${d.domain} DMARC`, async () => {
    const txt = (await flat(`_dmarc.${d.domain}`)).find((t) => t.startsWith('v=DMARC1'));
    return txt
      ? { check: `${d.domain} DMARC`, status: 'ok', detail: txt.slice(0, 120) }
      : { check: `${d.domain} DMARC`, status: 'warn', detail: `no DMARC record at _dmarc.${d.domain}`, fix: `publish: _dmarc.${d.domain}. TXT "v=DMARC1; p=none; rua=mailto:postmaster@${d.domain}"` };
  });
  return out;
}

function tryListen(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    s.listen(port, host, () => s.close(() => resolve(null)));
  });
}

async function answersHealth(host: string, port: number): Promise<boolean> {
  const h = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  try {
    const res = await fetch(`http://${h}:${port}/v1/health`, { signal: AbortSignal.timeout(3000) });
    const body = (await res.json()) as { status?: string };
    return res.ok && body.status === 'ok';
  } catch {
    return false;
  }
}

/** Connect to the relay (TLS at once for smtps://), read the greeting, say EHLO, QUIT. Resolves with the EHLO reply's first line and whether it offers STARTTLS. */
export function ehlo(relayUrl: string, timeoutMs: number): Promise<{ first: string; starttls: boolean }> {
  const u = new URL(relayUrl);
  const secure = u.protocol === 'smtps:';
  const port = Number(u.port || (secure ? 465 : 587));
  return new Promise((resolve, reject) => {
    const sock: Socket = secure ? tlsConnect({ host: u.hostname, port, servername: u.hostname }) : netConnect({ host: u.hostname, port });
    let buf = '';
    let stage: 'greeting' | 'ehlo' = 'greeting';
    const done = (err: Error | null, v?: { first: string; starttls: boolean }) => {
      clearTimeout(timer);
      sock.removeAllListeners('data');
      if (!err) sock.end('QUIT\r\n');
      else sock.destroy();
      if (err) reject(err);
      else resolve(v!);
    };
    const timer = setTimeout(() => done(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
    sock.setEncoding('utf8');
    sock.on('error', (err) => done(err));
    sock.on('data', (d: string) => {
      buf += d;
      // A reply is complete at a line whose code is followed by a space (RFC 5321 §4.2.1).
      const lines = buf.split('\r\n');
      const last = lines.findIndex((l) => /^\d{3} /.test(l));
      if (last < 0) return;
      const code = Number(lines[last].slice(0, 3));
      const first = lines[0];
      buf = lines.slice(last + 1).join('\r\n');
      if (stage === 'greeting') {
        if (code !== 220) return done(new Error(`greeting was "${first}"`));
        stage = 'ehlo';
        sock.write('EHLO mailagent-doctor\r\n');
      } else {
        if (code !== 250) return done(new Error(`EHLO answered "${first}"`));
        done(null, { first, starttls: lines.slice(0, last + 1).some((l) => /^250[- ]STARTTLS\b/i.test(l)) });
      }
    });
  });
}
