/**
 * Polls GET /v1/health back to back (50 ms apart) until end(), and keeps the slowest answer (a
 * request that never answers counts as its 10 s timeout): what the freeze tests assert on.
 */
export function healthProbe(url: string) {
  let stop = false;
  let worst = 0;
  let answers = 0;
  const loop = (async () => {
    while (!stop) {
      const t = performance.now();
      try {
        const res = await fetch(`${url}/v1/health`, { signal: AbortSignal.timeout(10_000) });
        await res.arrayBuffer();
        if (res.ok) answers++;
      } catch {
        /* counted by its time */
      }
      worst = Math.max(worst, performance.now() - t);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return { async end() { stop = true; await loop; return { worst, answers }; } };
}
