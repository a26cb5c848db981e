/**
 * The seeded random source (xorshift32) of the data generators and the trainers: the same seed gives the same sequence on
 * every machine, so the committed .jsonl sets regenerate byte for byte.
 */
export function xorshift(seed: number) {
  let s = seed >>> 0 || 1; // 0 would stay 0 for ever
  const rnd = (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
  const maybe = (p: number, text: string): string => (rnd() < p ? text : '');
  return { rnd, pick, maybe };
}
