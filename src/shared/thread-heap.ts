import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

/**
 * The V8 heap of the thread that calls threadHeap() (each worker thread is its own isolate, so the
 * main thread cannot read a worker's heap directly on Node 20: the worker answers over its port).
 * Bytes. `young` is the new space's current size (V8 grows it up to --max-semi-space-size under
 * allocation pressure and keeps it), `external` what the isolate's objects hold outside the heap
 * (ArrayBuffers, strings from native code).
 */
export interface ThreadHeap {
  used: number;
  total: number;
  young: number;
  external: number;
  limit: number;
}

/**
 * V8 limits of the daemon's helper threads that run little JavaScript (the inbound queue's writer,
 * the WAL checkpointer): a young generation of 3 MB (new space 2 MB). Without it each one's new
 * space grows to --max-semi-space-size's (src/server/memory.ts: 8 MB) or V8's default (32 MB), and
 * V8 keeps it. Big objects (a message's raw bytes) are outside the young generation; the old
 * generation is left at V8's default (a cap there aborts the process, not the thread: Node issue
 * 47224). Figures: bench/README.md, "round 2 session 10".
 */
export const HELPER_THREAD_YOUNG_MB = 3;

/**
 * A helper thread's heap, asked over its port: the thread answers the message 'heap' with
 * `{ heap: threadHeap() }`, which the owner hands to answer(). null when it does not answer in time.
 */
export class ThreadHeapRequests {
  private waiters: ((h: ThreadHeap | null) => void)[] = [];

  constructor(private readonly ask: () => void) {}

  request(waitMs = 1000): Promise<ThreadHeap | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), waitMs);
      this.waiters.push((h) => {
        clearTimeout(timer);
        resolve(h);
      });
      this.ask();
    });
  }

  answer(heap: ThreadHeap): void {
    for (const w of this.waiters.splice(0)) w(heap);
  }
}

export function threadHeap(): ThreadHeap {
  const h = getHeapStatistics();
  const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
  return { used: h.used_heap_size, total: h.total_heap_size, young, external: h.external_memory, limit: h.heap_size_limit };
}
