/** One named readiness check: resolves ok/detail, or throws (counted as failing with its message). */
export type ReadinessCheck = () => Promise<{ ok: boolean; detail: string }> | { ok: boolean; detail: string };

export interface ReadinessReport {
  ready: boolean;
  checks: { name: string; ok: boolean; detail: string }[];
}

const CHECK_TIMEOUT_MS = 2000;

/**
 * Readiness as a list of named checks (GET /health/ready). The daemon registers its own (database
 * writable, SMTP listening, workers alive, disk above the guard); other parts register theirs
 * (a worker pool's liveness) with register(). Each check is bounded by a timeout, so one stuck
 * check reports failing instead of hanging the probe.
 */
export class Readiness {
  private readonly checks = new Map<string, ReadinessCheck>();

  register(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  names(): string[] {
    return [...this.checks.keys()];
  }

  async run(): Promise<ReadinessReport> {
    const checks = await Promise.all([...this.checks].map(async ([name, check]) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const r = await Promise.race([
          Promise.resolve().then(check),
          new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer in ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS); }),
        ]);
        return { name, ok: r.ok, detail: r.detail };
      } catch (err) {
        return { name, ok: false, detail: (err as Error).message };
      } finally {
        clearTimeout(timer);
      }
    }));
    return { ready: checks.every((c) => c.ok), checks };
  }
}
