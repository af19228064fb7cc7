// The blog's query cache in the browser (spec §9): what a client-side navigation loaded stays
// fresh for 5 minutes, keyed by the page's URL, and a failed load is retried once. Server
// rendering is unaffected: the first page comes from the server, and its data hydrates as is.

export const FRESH_MS = 5 * 60 * 1000;
export const RETRIES = 1;
const MAX_ENTRIES = 50;

export interface QueryCache {
  /** The cached value for `key` while fresh; otherwise `load()` (retried once on failure), cached if `keep` says so. */
  get<T>(key: string, load: () => Promise<T>, keep?: (value: T) => boolean): Promise<T>;
  clear(): void;
}

export function createQueryCache(options: { freshMs?: number; now?: () => number } = {}): QueryCache {
  const freshMs = options.freshMs ?? FRESH_MS;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { at: number; value: unknown }>();
  return {
    async get<T>(key: string, load: () => Promise<T>, keep: (value: T) => boolean = () => true) {
      const hit = entries.get(key);
      if (hit && now() - hit.at < freshMs) return hit.value as T;
      entries.delete(key);
      let value: T;
      for (let attempt = 0; ; attempt++) {
        try {
          value = await load();
          break;
        } catch (error) {
          if (attempt >= RETRIES) throw error;
        }
      }
      if (keep(value)) {
        entries.set(key, { at: now(), value });
        // Oldest first out: a Map iterates in insertion order.
        while (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
      }
      return value;
    },
    clear: () => entries.clear(),
  };
}

/** The one cache the blog's routes share in a browser tab. */
export const blogQueryCache = createQueryCache();
