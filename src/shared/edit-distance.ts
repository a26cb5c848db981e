/**
 * Levenshtein distance of two short strings, for "did you mean" hints; anything over `max` (and
 * strings whose lengths differ by more, or longer than 256) is `max + 1` without the full table.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max || a.length > 256 || b.length > 256) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return Math.min(prev[b.length], max + 1);
}
