// Background jobs: one interface, two engines (decision 023). On PostgreSQL the jobs are rows in
// pg-boss's tables, shared by every server: any server's workers run them, a job whose server
// died is retried by another (heartbeats), retries back off exponentially, schedules fire once
// for the whole cluster. On SQLite (one process) the same jobs run in-process on timers, with
// the same retries; what must survive a restart there is already in the database (a lagging
// repository, a stored contact message) and is picked up at start-up.

/** What a job type does and how its failures are retried. */
export interface JobDefinition<T extends object = object> {
  /** Letters, digits, "-" and "_" (pg-boss's queue names). */
  name: string;
  run(data: T): Promise<void>;
  /** Attempts after the first one before the job is given up (and logged). */
  retryLimit: number;
  /** Delay before the first retry; doubled (with jitter) for each further one. */
  retryDelaySeconds: number;
  /** No retry waits longer than this. */
  retryDelayMaxSeconds: number;
  /** A running attempt is considered lost (its server died) and retried after this long. */
  expireInSeconds: number;
  /**
   * At most one job per key waits to run (a send while one waits is dropped): requests made
   * while a job waits are all served by that job, which reads the state when it starts.
   */
  coalesceByKey?: boolean;
  /** Jobs of this type one server runs at once. */
  concurrency?: number;
  /**
   * Called once when the last attempt failed (not when a stopping server leaves a job to be
   * resumed): records the failure where users see it. Its own failure is logged.
   */
  giveUp?(data: T, error: unknown): Promise<void>;
}

export interface SendOptions {
  /** Coalescing key (see JobDefinition.coalesceByKey). */
  key?: string;
  /** Run no earlier than this many seconds from now. */
  delaySeconds?: number;
}

/** How a job fared, for the metrics. */
export type JobOutcome = "completed" | "failed" | "retried";

export interface JobQueue {
  readonly engine: "pg-boss" | "in-process";
  /** Registers a job type; before start(). */
  define<T extends object>(definition: JobDefinition<T>): void;
  /** Runs `name` every `everyMinutes` (1, 2, 5, 10, 15, 30 or 60) on one server of the cluster. */
  schedule(name: string, everyMinutes: ScheduleMinutes): void;
  /** Creates the queues and starts working them. */
  start(): Promise<void>;
  /** Adds a job; resolves once it is stored (PostgreSQL: committed). */
  send<T extends object>(name: string, data: T, options?: SendOptions): Promise<void>;
  /** Jobs waiting and running, by type (read at metrics scrape time). */
  depth(): Promise<Record<string, { waiting: number; running: number }>>;
  /** Stops taking jobs and waits for running ones (up to a deadline). */
  stop(): Promise<void>;
}

export type ScheduleMinutes = 1 | 2 | 5 | 10 | 15 | 30 | 60;

export interface JobObserver {
  job(name: string, outcome: JobOutcome, seconds: number): void;
}

/** The delay before retry `attempt` (1-based): exponential with jitter, capped. */
export function retryDelayMs(
  definition: Pick<JobDefinition, "retryDelaySeconds" | "retryDelayMaxSeconds">,
  attempt: number,
): number {
  const base = definition.retryDelaySeconds * 2 ** Math.min(16, attempt - 1);
  const jittered = base / 2 + (base / 2) * Math.random();
  return (
    Math.min(definition.retryDelayMaxSeconds, Math.max(jittered, definition.retryDelaySeconds / 2)) * 1000
  );
}

export class UnknownJobError extends Error {
  constructor(name: string) {
    super(`no job type named ${name} is defined`);
    this.name = "UnknownJobError";
  }
}
