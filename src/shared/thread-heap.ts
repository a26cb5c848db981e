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

export function threadHeap(): ThreadHeap {
  const h = getHeapStatistics();
  const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
  return { used: h.used_heap_size, total: h.total_heap_size, young, external: h.external_memory, limit: h.heap_size_limit };
}
