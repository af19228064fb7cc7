// Slots for the webhook attempts one server makes at once (decision 059): at most `total` in
// all and at most `perKey` for one key (a project), so one tenant's receivers that hang cannot
// hold every socket; a freed slot goes to the keys waiting in turn (round-robin), not to
// whoever queued the most.

export type Release = () => void;

export class FairLimiter {
  readonly total: number;
  readonly perKey: number;
  #inUse = 0;
  readonly #byKey = new Map<string, number>();
  /** Waiters per key; the map's order is the order keys are served in. */
  readonly #waiting = new Map<string, ((release: Release) => void)[]>();

  constructor(total: number, perKey: number) {
    this.total = Math.max(1, total);
    this.perKey = Math.max(1, Math.min(perKey, this.total));
  }

  /** Resolves with the function that gives the slot back, once one is free for `key`. */
  acquire(key: string): Promise<Release> {
    if (!this.#waiting.has(key) && this.#free(key)) return Promise.resolve(this.#take(key));
    return new Promise((resolve) => {
      const queue = this.#waiting.get(key);
      if (queue) queue.push(resolve);
      else this.#waiting.set(key, [resolve]);
    });
  }

  /** Slots in use (all keys). */
  get inUse(): number {
    return this.#inUse;
  }

  #free(key: string): boolean {
    return this.#inUse < this.total && (this.#byKey.get(key) ?? 0) < this.perKey;
  }

  #take(key: string): Release {
    this.#inUse++;
    this.#byKey.set(key, (this.#byKey.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inUse--;
      const left = (this.#byKey.get(key) ?? 1) - 1;
      if (left === 0) this.#byKey.delete(key);
      else this.#byKey.set(key, left);
      this.#grant();
    };
  }

  #grant() {
    for (const [key, queue] of this.#waiting) {
      if (this.#inUse >= this.total) return;
      if (!this.#free(key)) continue;
      const next = queue.shift()!;
      // Served: the key goes to the back of the line (or leaves it, with nobody left waiting).
      this.#waiting.delete(key);
      if (queue.length > 0) this.#waiting.set(key, queue);
      next(this.#take(key));
    }
  }
}
