// Which job engine a server runs: pg-boss on PostgreSQL (scale mode), in-process on SQLite.
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import { InProcessQueue } from "./in-process-queue.ts";
import { PgBossQueue } from "./pg-boss-queue.ts";
import type { JobObserver, JobQueue } from "./queue.ts";

export function createJobQueue(config: Config, logger: Logger, observer?: JobObserver): JobQueue {
  return config.database.kind === "postgres"
    ? new PgBossQueue({ connectionString: config.database.url, logger, observer })
    : new InProcessQueue(logger, observer);
}
