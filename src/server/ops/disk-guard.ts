import { statfs } from 'node:fs/promises';

/** Bytes available to this process on the filesystem holding `dir` (statfs: bavail × bsize). */
export type FreeSpaceFn = (dir: string) => Promise<number>;

export const statfsFreeSpace: FreeSpaceFn = async (dir) => {
  const s = await statfs(dir);
  return Number(s.bavail) * Number(s.bsize);
};

export interface DiskState {
  ok: boolean;
  freeBytes: number;
  minFreeBytes: number;
}

/**
 * The low-disk guard (issue #16). Below minFreeBytes free on the data dir's filesystem the SMTP
 * listener answers 452 4.3.1 and send routes answer 503 service_unavailable, so a full disk
 * refuses mail cleanly (the sender retries) instead of failing half-way through a write. The
 * free space is read at most every refreshMs (statfs is cheap, but not per recipient); the
 * function is injectable so tests can simulate a full disk.
 */
export class DiskGuard {
  private state: DiskState;
  private readAt = 0;
  private reading: Promise<DiskState> | null = null;

  constructor(
    private readonly dir: string,
    readonly minFreeBytes: number,
    private readonly freeSpace: FreeSpaceFn = statfsFreeSpace,
    private readonly refreshMs = 2000,
  ) {
    this.state = { ok: true, freeBytes: Number.POSITIVE_INFINITY, minFreeBytes };
  }

  /**
   * The state check() would answer without reading the disk (the guard is off, or the last read
   * is younger than refreshMs), at once; null when check() must read. The API's send routes ask
   * this first, so a send waits for no promise here between two reads.
   */
  current(): DiskState | null {
    if (this.minFreeBytes <= 0) return { ok: true, freeBytes: this.state.freeBytes, minFreeBytes: 0 };
    return performance.now() - this.readAt < this.refreshMs && this.readAt > 0 ? this.state : null;
  }

  /** The current state, re-read when older than refreshMs. A failing statfs counts as "ok" (logged by the caller's readiness check). */
  async check(): Promise<DiskState> {
    const known = this.current();
    if (known) return known;
    this.reading ??= this.freeSpace(this.dir).then((free) => {
      this.state = { ok: free >= this.minFreeBytes, freeBytes: free, minFreeBytes: this.minFreeBytes };
      this.readAt = performance.now();
      return this.state;
    }, () => this.state).finally(() => { this.reading = null; });
    return this.reading;
  }

  /** "12.0 MiB free, below the 256 MiB guard" for replies and readiness. */
  static describe(s: DiskState): string {
    const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
    return s.ok ? `${mib(s.freeBytes)} free (guard ${mib(s.minFreeBytes)})` : `${mib(s.freeBytes)} free, below the ${mib(s.minFreeBytes)} guard`;
  }
}
