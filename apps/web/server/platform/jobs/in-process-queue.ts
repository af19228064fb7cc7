// The job queue of the embedded mode (SQLite, one process): jobs run on timers in this process,
// with the retries, coalescing and schedules of the PostgreSQL engine (queue.ts). Nothing is
// stored: a job waiting when the process stops is dropped, and what it would have done is found
// again at start-up (maintenance.ts) or was never lost (a stored contact message). A type's
// `concurrency` is honoured as pg-boss honours it: a job due while that many run waits its turn.
import type { Logger } from "../observability/logger.ts";
import {
  type JobDefinition,
  type JobObserver,
  type JobQueue,
  retryDelayMs,
  type ScheduleMinutes,
  type SendOptions,
  UnknownJobError,
} from "./queue.ts";

interface Counts {
  waiting: number;
  running: number;
}

export class InProcessQueue implements JobQueue {
  readonly engine = "in-process" as const;
  readonly #logger: Logger;
  readonly #observer: JobObserver | undefined;
  readonly #definitions = new Map<string, JobDefinition<object>>();
  readonly #schedules = new Map<string, ScheduleMinutes>();
  /** Keys with a job waiting, per type. */
  readonly #waitingKeys = new Map<string, Set<string>>();
  readonly #counts = new Map<string, Counts>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #running = new Set<Promise<void>>();
  /** Attempts that are due while their type runs `concurrency` jobs, first due first. */
  readonly #due = new Map<string, (() => Promise<void>)[]>();
  readonly #active = new Map<string, number>();
  #started = false;
  #stopped = false;

  constructor(logger: Logger, observer?: JobObserver) {
    this.#logger = logger;
    this.#observer = observer;
  }

  define<T extends object>(definition: JobDefinition<T>): void {
    this.#definitions.set(definition.name, definition as JobDefinition<object>);
    this.#waitingKeys.set(definition.name, new Set());
    this.#counts.set(definition.name, { waiting: 0, running: 0 });
    this.#due.set(definition.name, []);
    this.#active.set(definition.name, 0);
  }

  schedule(name: string, everyMinutes: ScheduleMinutes): void {
    this.#schedules.set(name, everyMinutes);
  }

  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    for (const [name, minutes] of this.#schedules) {
      if (!this.#definitions.has(name)) throw new UnknownJobError(name);
      const timer = setInterval(() => {
        void this.send(name, {}, { key: "schedule" });
      }, minutes * 60_000);
      timer.unref();
      this.#timers.add(timer);
    }
  }

  async send<T extends object>(name: string, data: T, options: SendOptions = {}): Promise<void> {
    const definition = this.#definitions.get(name);
    if (!definition) throw new UnknownJobError(name);
    if (this.#stopped) return;
    const { key } = options;
    if (definition.coalesceByKey && key !== undefined) {
      const waiting = this.#waitingKeys.get(name)!;
      if (waiting.has(key)) return;
      waiting.add(key);
    }
    this.#counts.get(name)!.waiting++;
    this.#later(definition, (options.delaySeconds ?? 0) * 1000, () =>
      this.#attempt(definition, data, key, 0),
    );
  }

  #later(definition: JobDefinition<object>, ms: number, work: () => Promise<void>) {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.#dispatch(definition, work);
    }, ms);
    timer.unref();
    this.#timers.add(timer);
  }

  /** Runs a due attempt now if its type has a free slot, else after the ones before it. */
  #dispatch(definition: JobDefinition<object>, work: () => Promise<void>) {
    if (this.#stopped) return;
    const { name } = definition;
    const active = this.#active.get(name)!;
    if (active >= (definition.concurrency ?? Number.POSITIVE_INFINITY)) {
      this.#due.get(name)!.push(work);
      return;
    }
    this.#active.set(name, active + 1);
    const running = work().finally(() => {
      this.#running.delete(running);
      this.#active.set(name, this.#active.get(name)! - 1);
      const next = this.#due.get(name)!.shift();
      if (next) this.#dispatch(definition, next);
    });
    this.#running.add(running);
  }

  async #attempt(definition: JobDefinition<object>, data: object, key: string | undefined, attempt: number) {
    const counts = this.#counts.get(definition.name)!;
    if (attempt === 0) {
      // From here on a new send waits behind this job instead of joining it.
      if (key !== undefined) this.#waitingKeys.get(definition.name)!.delete(key);
    }
    counts.waiting--;
    counts.running++;
    const started = performance.now();
    try {
      await definition.run(data);
      this.#observer?.job(definition.name, "completed", (performance.now() - started) / 1000);
    } catch (error) {
      const seconds = (performance.now() - started) / 1000;
      if (attempt < definition.retryLimit && !this.#stopped) {
        const delay = retryDelayMs(definition, attempt + 1);
        this.#logger.warn(
          `job ${definition.name} failed (attempt ${attempt + 1} of ${definition.retryLimit + 1}), retrying in ${Math.round(delay / 1000)} s: ${(error as Error).message}`,
        );
        this.#observer?.job(definition.name, "retried", seconds);
        counts.waiting++;
        this.#later(definition, delay, () => this.#attempt(definition, data, undefined, attempt + 1));
      } else {
        this.#observer?.job(definition.name, "failed", seconds);
        this.#logger.error(`job ${definition.name} failed after ${attempt + 1} attempt(s)`, error);
        // A stopping server leaves the job to be resumed at the next start: not given up.
        if (!this.#stopped) {
          await definition.giveUp?.(data, error).catch((cause: unknown) => {
            this.#logger.error(`recording that job ${definition.name} gave up failed`, cause);
          });
        }
      }
    } finally {
      counts.running--;
    }
  }

  async depth(): Promise<Record<string, Counts>> {
    return Object.fromEntries([...this.#counts].map(([name, c]) => [name, { ...c }]));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers) {
      clearTimeout(timer);
      clearInterval(timer);
    }
    this.#timers.clear();
    for (const counts of this.#counts.values()) counts.waiting = 0;
    for (const due of this.#due.values()) due.length = 0;
    await Promise.allSettled([...this.#running]);
  }
}
