// What the fuzz and limit tests share: a seedable random source and a measure of the memory a
// read allocates. No collection is forced (decision 071): a collection V8 runs during a read
// only lowers what is counted, so a bound on the growth still holds.

/** mulberry32: small, seedable, good enough to spread mutations. */
export function prng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  return { next, int, pick: <T>(items: readonly T[]): T => items[int(items.length)]! };
}

export type Random = ReturnType<typeof prng>;

/** JS heap plus ArrayBuffers: decoded values show in the first, copied bytes in the second. */
export function memoryInUse(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}
