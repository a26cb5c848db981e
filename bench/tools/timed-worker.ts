// A worker thread that runs one job per message and answers with a result, cut at a timeout: the
// fuzzers (bench/classifier-linear.bench.ts, bench/classifier-html.bench.ts) time one build's code in
// it, so a superlinear case cannot hold the bench. A job past the timeout terminates the worker; the
// next job starts a fresh one. The worker's code posts `{ ready: true }` once it can take jobs.
import { Worker } from 'node:worker_threads';

export class TimedWorker<Job, Reply> {
  private w: Worker | null = null;
  private ready: Promise<void> | null = null;
  constructor(private readonly code: string, private readonly workerData: unknown, private readonly timeoutMs: number) {}

  private start(): Promise<void> {
    this.w = new Worker(this.code, { eval: true, workerData: this.workerData });
    const w = this.w;
    this.ready = new Promise((resolve, reject) => {
      const on = (m: { ready?: boolean }) => {
        if (m.ready) {
          w.off('message', on);
          resolve();
        }
      };
      w.on('message', on);
      w.once('error', reject);
    });
    return this.ready;
  }

  /** The worker's reply to `job`, or null when it ran past the timeout (the worker is replaced). */
  async run(job: Job): Promise<Reply | null> {
    if (!this.w) await this.start();
    else await this.ready;
    const w = this.w!;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        w.off('message', on);
        void w.terminate();
        this.w = null;
        resolve(null);
      }, this.timeoutMs);
      const on = (m: Reply) => {
        clearTimeout(timer);
        w.off('message', on);
        resolve(m);
      };
      w.on('message', on);
      w.postMessage(job);
    });
  }

  async close(): Promise<void> {
    await this.w?.terminate();
  }
}
