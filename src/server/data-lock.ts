import { closeSync, openSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { makePrivateDir } from '../shared/private-fs.js';
import { join } from 'node:path';

/**
 * One daemon per data directory. Two daemons on one SQLite file would both run the scheduler
 * and the webhook worker (double sends, double deliveries), so `serve` takes `mailagent.lock`
 * in the data directory: created exclusively (O_EXCL), holding the owner's PID and, once it
 * listens, its addresses. A lock whose PID is gone (a crash, kill -9) is stale and taken over.
 * Operator commands (`mailagent admin …`) do not take it: they make short writes that SQLite's
 * WAL mode lets run beside a daemon.
 */
export interface LockInfo {
  pid: number;
  started_at: string;
  api: string | null;
  smtp: string | null;
  /**
   * The relay the daemon sends through, its password redacted (config.ts redact), null without
   * one; absent in a lock written by an older daemon. `doctor` checks this relay, not the one its
   * own environment names (`serve --relay` is seen by nobody else).
   */
  relay?: string | null;
  /** The daemon's public URL (absent in an older daemon's lock): with `relay`, what its SPF advice names. */
  public_url?: string;
}

export class DataDirLocked extends Error {
  constructor(readonly dataDir: string, readonly holder: LockInfo) {
    const where = [holder.api && `API ${holder.api}`, holder.smtp && `SMTP ${holder.smtp}`].filter(Boolean).join(', ');
    super(`another mailagent (PID ${holder.pid}${where ? `, ${where}` : ', still starting'}) is using the data directory ${dataDir}; stop it first, or start this one with another --data-dir`);
    this.name = 'DataDirLocked';
  }
}

/** Locks held by this process (a daemon stopped and created again in one process, as tests do). */
const heldHere = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

function readLock(file: string): LockInfo | null {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as LockInfo;
    return typeof v.pid === 'number' ? v : null;
  } catch {
    return null;
  }
}

/** The daemon using this data directory (its lock, with a live PID), or null. `doctor` checks its ports. */
export function runningDaemon(dataDir: string): LockInfo | null {
  const holder = readLock(join(dataDir, 'mailagent.lock'));
  return holder && alive(holder.pid) ? holder : null;
}

export interface DataLock {
  file: string;
  /** Record the bound addresses, so a second daemon can name them. */
  update(addr: { api: string; smtp: string | null; relay?: string | null; public_url?: string }): void;
  release(): void;
}

export function acquireDataLock(dataDir: string): DataLock {
  makePrivateDir(dataDir);
  const file = join(dataDir, 'mailagent.lock');
  const info: LockInfo = { pid: process.pid, started_at: new Date().toISOString(), api: null, smtp: null };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, JSON.stringify(info) + '\n');
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
      const holder = readLock(file);
      const live = holder && alive(holder.pid) && (holder.pid !== process.pid || heldHere.has(file));
      if (live && holder) throw new DataDirLocked(dataDir, holder);
      // Stale (its process is gone) or unreadable: take it over.
      try {
        unlinkSync(file);
      } catch {
        /* raced with another starter: the next attempt decides */
      }
    }
  }
  heldHere.add(file);
  let released = false;
  return {
    file,
    update(addr) {
      if (released) return;
      writeFileSync(file, JSON.stringify({ ...info, ...addr }) + '\n', { mode: 0o600 });
    },
    release() {
      if (released) return;
      released = true;
      heldHere.delete(file);
      if (readLock(file)?.pid === process.pid) {
        try {
          unlinkSync(file);
        } catch {
          /* already gone */
        }
      }
    },
  };
}
