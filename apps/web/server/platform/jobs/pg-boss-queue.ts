// The job queue of scale mode: pg-boss on the shared PostgreSQL database (its own schema,
// "pgboss"). Every server sends jobs and works every queue; a job is claimed by one worker,
// LISTEN/NOTIFY wakes the workers at once (polling remains as a floor), a running job's
// heartbeat shows its server alive and a job whose heartbeat stops (a killed server) is retried
// by another, retries back off exponentially, and a schedule fires once for the cluster.
import { PgBoss } from "pg-boss";
import type { Logger } from "../observability/logger.ts";
import {
  type JobDefinition,
  type JobObserver,
  type JobQueue,
  type ScheduleMinutes,
  type SendOptions,
  UnknownJobError,
} from "./queue.ts";

export const JOB_SCHEMA = "pgboss";

/** Seconds between heartbeats that a running job's server must send (pg-boss's minimum is 10). */
const HEARTBEAT_SECONDS = 10;

export interface PgBossQueueOptions {
  connectionString: string;
  logger: Logger;
  observer?: JobObserver;
  /** How often pg-boss looks for jobs whose server stopped sending heartbeats (default 15). */
  superviseIntervalSeconds?: number;
}

/** Installs or upgrades pg-boss's schema and exits (the `migrate` command). */
export async function migrateJobSchema(connectionString: string): Promise<void> {
  const boss = new PgBoss({
    connectionString,
    schema: JOB_SCHEMA,
    max: 1,
    supervise: false,
    schedule: false,
  });
  await boss.start();
  await boss.stop({ graceful: false, close: true });
}

function cron(everyMinutes: ScheduleMinutes): string {
  return everyMinutes === 60 ? "0 * * * *" : everyMinutes === 1 ? "* * * * *" : `*/${everyMinutes} * * * *`;
}

export class PgBossQueue implements JobQueue {
  readonly engine = "pg-boss" as const;
  readonly #boss: PgBoss;
  readonly #logger: Logger;
  readonly #observer: JobObserver | undefined;
  readonly #definitions = new Map<string, JobDefinition<object>>();
  readonly #schedules = new Map<string, ScheduleMinutes>();
  #started: Promise<void> | undefined;

  constructor(options: PgBossQueueOptions) {
    this.#logger = options.logger;
    this.#observer = options.observer;
    this.#boss = new PgBoss({
      connectionString: options.connectionString,
      schema: JOB_SCHEMA,
      application_name: "packyard-jobs",
      max: 4,
      useListenNotify: true,
      // One server at a time (pg-boss takes a lock) checks heartbeats and counts the queues.
      superviseIntervalSeconds: options.superviseIntervalSeconds ?? 15,
      monitorIntervalSeconds: options.superviseIntervalSeconds ?? 15,
    });
    // A lost connection or a failed maintenance query: pg-boss reconnects and goes on.
    this.#boss.on("error", (error) => this.#logger.error("job queue error", error));
  }

  define<T extends object>(definition: JobDefinition<T>): void {
    this.#definitions.set(definition.name, definition as JobDefinition<object>);
  }

  schedule(name: string, everyMinutes: ScheduleMinutes): void {
    this.#schedules.set(name, everyMinutes);
  }

  start(): Promise<void> {
    this.#started ??= this.#start();
    return this.#started;
  }

  async #start() {
    const boss = this.#boss;
    // Installs pg-boss's schema on first start, under its own advisory lock.
    await boss.start();
    for (const definition of this.#definitions.values()) {
      const options = {
        policy: definition.coalesceByKey ? "short" : "standard",
        retryLimit: definition.retryLimit,
        retryDelay: definition.retryDelaySeconds,
        retryBackoff: true,
        retryDelayMax: definition.retryDelayMaxSeconds,
        expireInSeconds: definition.expireInSeconds,
        heartbeatSeconds: HEARTBEAT_SECONDS,
        // Finished jobs are kept a day for inspection (a mail job holds the message's links).
        deleteAfterSeconds: 24 * 3600,
        notify: true,
      } as const;
      // Servers starting together all create the queues: the first one wins, the others update.
      if (!(await boss.getQueue(definition.name))) {
        await boss.createQueue(definition.name, options).catch(async (error: unknown) => {
          if (!(await boss.getQueue(definition.name))) throw error;
        });
      }
      const { policy: _policy, retryDelayMax: _max, heartbeatSeconds: _hb, ...updatable } = options;
      await boss.updateQueue(definition.name, updatable);
      await boss.work<object>(
        definition.name,
        {
          localConcurrency: definition.concurrency ?? 1,
          // NOTIFY wakes a worker for a new job at once; delayed jobs and retries are found by
          // polling.
          pollingIntervalSeconds: 2,
          notifyPollingIntervalSeconds: 2,
        },
        async ([job]) => {
          if (!job) return;
          const started = performance.now();
          try {
            await definition.run(job.data);
            this.#observer?.job(definition.name, "completed", (performance.now() - started) / 1000);
          } catch (error) {
            const last = job.retryCount >= definition.retryLimit;
            this.#observer?.job(
              definition.name,
              last ? "failed" : "retried",
              (performance.now() - started) / 1000,
            );
            const message = `job ${definition.name} failed (attempt ${job.retryCount + 1} of ${definition.retryLimit + 1})`;
            if (last) {
              this.#logger.error(`${message}; giving up`, error);
              await definition.giveUp?.(job.data, error).catch((cause: unknown) => {
                this.#logger.error(`recording that job ${definition.name} gave up failed`, cause);
              });
            } else this.#logger.warn(`${message}, will be retried: ${(error as Error).message}`);
            throw error;
          }
        },
      );
    }
    for (const [name, everyMinutes] of this.#schedules) {
      if (!this.#definitions.has(name)) throw new UnknownJobError(name);
      await boss.schedule(name, cron(everyMinutes), {}, { tz: "UTC", singletonKey: "schedule" });
    }
  }

  async send<T extends object>(name: string, data: T, options: SendOptions = {}): Promise<void> {
    if (!this.#definitions.has(name)) throw new UnknownJobError(name);
    await this.start();
    await this.#boss.send(name, data, {
      singletonKey: options.key,
      startAfter: options.delaySeconds ? Math.ceil(options.delaySeconds) : undefined,
    });
  }

  async depth(): Promise<Record<string, { waiting: number; running: number }>> {
    const queues = await this.#boss.getQueues([...this.#definitions.keys()]);
    return Object.fromEntries(
      queues.map((q) => [q.name, { waiting: q.queuedCount, running: q.activeCount }]),
    );
  }

  async stop(): Promise<void> {
    if (!this.#started) return;
    await this.#started.catch(() => {});
    // Running jobs get the deadline to finish; one that does not is retried by another server.
    await this.#boss.stop({ graceful: true, timeout: 20_000, close: true });
  }
}
