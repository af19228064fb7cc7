// Which job engine a server runs: pg-boss on PostgreSQL (scale mode), in-process on SQLite.
// pg-boss is imported only when it runs: an embedded server never loads it (decision 037).
import type { Config } from "../config/config.ts";
import type { Logger } from "../observability/logger.ts";
import { InProcessQueue } from "./in-process-queue.ts";
import type { JobObserver, JobQueue } from "./queue.ts";

export async function createJobQueue(
  config: Config,
  logger: Logger,
  observer?: JobObserver,
): Promise<JobQueue> {
  if (config.database.kind !== "postgres") return new InProcessQueue(logger, observer);
  const { PgBossQueue } = await import("./pg-boss-queue.ts");
  return new PgBossQueue({ connectionString: config.database.url, logger, observer });
}
