// A job-queue worker for pg-boss-queue.db.test.ts: on the database in argv[2], sends one job to
// the queue named in argv[3] and works that queue alone; prints "started <data>" when it takes
// the job and never finishes it — the test kills it with SIGKILL mid-job, as a crashed server.
import { PgBossQueue } from "../server/platform/jobs/pg-boss-queue.ts";
import { createLogger } from "../server/platform/observability/logger.ts";

const [connectionString, name] = process.argv.slice(2) as [string, string];
const queue = new PgBossQueue({ connectionString, logger: createLogger("silent") });
queue.define({
  name,
  run: async (data) => {
    process.stdout.write(`started ${JSON.stringify(data)}\n`);
    await new Promise(() => {});
  },
  retryLimit: 3,
  retryDelaySeconds: 1,
  retryDelayMaxSeconds: 1,
  expireInSeconds: 600,
});
await queue.start();
await queue.send(name, { n: 7 });
