// The scale-mode engine on a real PostgreSQL database: several servers' queues share the jobs,
// each job runs once, failures are retried, waiting jobs coalesce by key, and a job whose server
// is killed mid-run is retried by another server. PostgreSQL only: with SQLite the in-process
// engine runs the same jobs (in-process-queue.test.ts).
import { spawn } from "node:child_process";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresDatabase, databaseKind } from "../../../test/harness.ts";
import { createLogger } from "../observability/logger.ts";
import { PgBossQueue } from "./pg-boss-queue.ts";
import type { JobDefinition } from "./queue.ts";

const onPostgres = databaseKind === "postgres";

function job(name: string, run: (data: { n: number }) => Promise<void>, extra: Partial<JobDefinition> = {}) {
  return {
    name,
    run,
    retryLimit: 3,
    retryDelaySeconds: 1,
    retryDelayMaxSeconds: 1,
    expireInSeconds: 600,
    ...extra,
  } satisfies JobDefinition<{ n: number }>;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!onPostgres)("pg-boss job queue (postgres)", () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  const queues: PgBossQueue[] = [];
  const logger = createLogger("silent");
  const newQueue = (superviseIntervalSeconds?: number) => {
    const q = new PgBossQueue({ connectionString: database.url, logger, superviseIntervalSeconds });
    queues.push(q);
    return q;
  };

  beforeAll(async () => {
    database = await createPostgresDatabase();
  });
  afterAll(async () => {
    for (const q of queues) await q.stop();
    await database?.drop();
  });

  it("shares jobs between servers: each job runs exactly once", async () => {
    const runs: { server: string; n: number }[] = [];
    const [a, b] = [newQueue(), newQueue()];
    a.define(job("share", async ({ n }) => void runs.push({ server: "a", n })));
    b.define(job("share", async ({ n }) => void runs.push({ server: "b", n })));
    // Started together: both create the queue; one creates it, the other finds it.
    await Promise.all([a.start(), b.start()]);
    for (let n = 0; n < 40; n++) await (n % 2 ? a : b).send("share", { n });
    await until(() => runs.length >= 40, 20_000, "40 jobs");
    await new Promise((r) => setTimeout(r, 300));
    expect(runs.map((r) => r.n).sort((x, y) => x - y)).toEqual([...Array(40).keys()]);
  });

  it("retries a failing job until it succeeds", async () => {
    let attempts = 0;
    const q = newQueue();
    q.define(
      job("flaky", async () => {
        attempts++;
        if (attempts < 3) throw new Error("not yet");
      }),
    );
    await q.start();
    await q.send("flaky", { n: 1 });
    await until(() => attempts >= 3, 30_000, "the third attempt");
    await new Promise((r) => setTimeout(r, 300));
    expect(attempts).toBe(3);
  });

  it("gives a job up after its last attempt, once, with its data and error", async () => {
    let attempts = 0;
    const givenUp: { data: unknown; message: string }[] = [];
    const q = newQueue();
    q.define(
      job(
        "hopeless",
        async () => {
          attempts++;
          throw new Error("still down");
        },
        {
          retryLimit: 1,
          giveUp: async (data, error) => void givenUp.push({ data, message: (error as Error).message }),
        },
      ),
    );
    await q.start();
    await q.send("hopeless", { n: 7 });
    await until(() => givenUp.length > 0, 30_000, "the job given up");
    await new Promise((r) => setTimeout(r, 2_500));
    expect(attempts).toBe(2);
    expect(givenUp).toEqual([{ data: { n: 7 }, message: "still down" }]);
  });

  it("keeps one job per key waiting: sends while it waits are served by it", async () => {
    const runs: number[] = [];
    const q = newQueue();
    q.define(job("coalesced", async ({ n }) => void runs.push(n), { coalesceByKey: true }));
    await q.start();
    await q.send("coalesced", { n: 1 }, { key: "project-1", delaySeconds: 1 });
    await q.send("coalesced", { n: 2 }, { key: "project-1", delaySeconds: 1 });
    await q.send("coalesced", { n: 3 }, { key: "project-2", delaySeconds: 1 });
    await until(() => runs.length >= 2, 10_000, "two jobs");
    await new Promise((r) => setTimeout(r, 2_500));
    expect(runs.sort()).toEqual([1, 3]);
  });

  it("retries on another server a job whose server was killed while running it", async () => {
    const worker = spawn(
      process.execPath,
      [join(import.meta.dirname, "../../../test/hanging-job-worker.ts"), database.url, "orphaned"],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let output = "";
    worker.stdout!.on("data", (d) => (output += d));
    try {
      await until(() => output.includes('started {"n":7}'), 20_000, "the worker to take its job");
    } finally {
      worker.kill("SIGKILL");
    }
    const client = new pg.Client({ connectionString: database.url });
    client.on("error", () => {});
    await client.connect();
    const state = async () =>
      (await client.query("select state, retry_count from pgboss.job where name = 'orphaned'")).rows[0] as {
        state: string;
        retry_count: number;
      };
    expect((await state()).state).toBe("active");
    // Another server: it sees the dead server's heartbeat stop and runs the job again.
    const ranOnSurvivor: number[] = [];
    const survivor = newQueue(1);
    survivor.define(job("orphaned", async ({ n }) => void ranOnSurvivor.push(n)));
    await survivor.start();
    await until(() => ranOnSurvivor.length > 0, 45_000, "the survivor to run the orphaned job");
    expect(ranOnSurvivor).toEqual([7]);
    await until(async () => (await state()).state === "completed", 10_000, "the job to complete");
    expect((await state()).retry_count).toBeGreaterThanOrEqual(1);
    await client.end();
  }, 90_000);
});
