/**
 * Recent times per key within a sliding window, for the in-memory rate limits of one daemon (the
 * send burst per key, services/limits.ts; the public routes per client address,
 * services/unsubscribe.ts). At most `maxKeys` keys (docs/security.md → In-memory caches): when
 * full, keys whose times have all left the window go first (they count nothing), then the least
 * recently used, down to 90 % of the cap so that a full map is not swept on every call. A key
 * dropped while still inside its window starts again from zero: that needs `maxKeys` other keys
 * used within one window.
 */
export class WindowLogs {
  /** In order of last use: a key is re-inserted on every take. */
  private readonly logs = new Map<string, number[]>();

  constructor(private readonly windowMs: number, private readonly maxKeys: number) {}

  /**
   * The key's times within the window that ends at `now`, oldest first, as the log kept for it:
   * the caller pushes `now` to count one.
   */
  take(key: string, now: number): number[] {
    const since = now - this.windowMs;
    const log = (this.logs.get(key) ?? []).filter((t) => t > since);
    this.logs.delete(key);
    if (this.logs.size >= this.maxKeys) this.evict(since);
    this.logs.set(key, log);
    return log;
  }

  get size(): number {
    return this.logs.size;
  }

  private evict(since: number): void {
    const keep = Math.floor(this.maxKeys * 0.9);
    for (const [k, v] of this.logs) if (!v.length || v[v.length - 1] <= since) this.logs.delete(k);
    for (const k of this.logs.keys()) {
      if (this.logs.size <= keep) break;
      this.logs.delete(k);
    }
  }
}
