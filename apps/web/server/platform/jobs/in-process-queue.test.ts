// The embedded engine: jobs run in this process with the retries, coalescing and schedules the
// PostgreSQL engine has (pg-boss-queue.db.test.ts checks that one).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { MailMessage } from "../mail/mailer.ts";
import { MAIL_JOB, mailJob, queuedMailer } from "../mail/queued-mailer.ts";
import type { Logger } from "../observability/logger.ts";
import { InProcessQueue } from "./in-process-queue.ts";
import type { JobDefinition, JobOutcome } from "./queue.ts";

function recordingLogger() {
  const lines: { level: string; message: string }[] = [];
  const log = (level: string) => (message: string) => {
    lines.push({ level, message });
  };
  const logger = {
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
  } as unknown as Logger;
  return { logger, lines };
}

function definition(run: (data: { n: number }) => Promise<void>, extra: Partial<JobDefinition> = {}) {
  return {
    name: "test-job",
    run,
    retryLimit: 3,
    retryDelaySeconds: 10,
    retryDelayMaxSeconds: 60,
    expireInSeconds: 60,
    ...extra,
  } satisfies JobDefinition<{ n: number }>;
}

describe("in-process job queue", () => {
  let outcomes: { name: string; outcome: JobOutcome }[];
  let queue: InProcessQueue;
  let lines: { level: string; message: string }[];

  beforeEach(() => {
    vi.useFakeTimers();
    outcomes = [];
    const recording = recordingLogger();
    lines = recording.lines;
    queue = new InProcessQueue(recording.logger, {
      job: (name, outcome) => outcomes.push({ name, outcome }),
    });
  });
  afterEach(async () => {
    await queue.stop();
    vi.useRealTimers();
  });

  it("runs a job with its data, after its delay", async () => {
    const seen: number[] = [];
    queue.define(definition(async ({ n }) => void seen.push(n)));
    await queue.start();
    await queue.send("test-job", { n: 1 }, { delaySeconds: 5 });
    await vi.advanceTimersByTimeAsync(4_900);
    expect(seen).toEqual([]);
    expect(await queue.depth()).toEqual({ "test-job": { waiting: 1, running: 0 } });
    await vi.advanceTimersByTimeAsync(200);
    expect(seen).toEqual([1]);
    expect(outcomes).toEqual([{ name: "test-job", outcome: "completed" }]);
    expect(await queue.depth()).toEqual({ "test-job": { waiting: 0, running: 0 } });
  });

  it("retries a failing job with growing delays until it succeeds", async () => {
    const attemptsAt: number[] = [];
    const start = Date.now();
    queue.define(
      definition(async () => {
        attemptsAt.push(Date.now() - start);
        if (attemptsAt.length < 3) throw new Error("SMTP 421 try later");
      }),
    );
    await queue.send("test-job", { n: 1 });
    await vi.advanceTimersByTimeAsync(120_000);
    expect(attemptsAt).toHaveLength(3);
    // 10 s ± jitter (5–10 s), then 20 s ± jitter (10–20 s).
    const [first, second, third] = attemptsAt as [number, number, number];
    expect(second - first).toBeGreaterThanOrEqual(5_000);
    expect(second - first).toBeLessThanOrEqual(10_000);
    expect(third - second).toBeGreaterThanOrEqual(10_000);
    expect(third - second).toBeLessThanOrEqual(20_000);
    expect(outcomes.map((o) => o.outcome)).toEqual(["retried", "retried", "completed"]);
    expect(lines.filter((l) => l.level === "warn")[0]?.message).toMatch(
      /job test-job failed \(attempt 1 of 4\), retrying in \d+ s: SMTP 421 try later/,
    );
  });

  it("gives a job up after its retries and logs it as an error", async () => {
    let attempts = 0;
    const givenUp: { data: unknown; message: string }[] = [];
    queue.define(
      definition(
        async () => {
          attempts++;
          throw new Error("still down");
        },
        {
          retryLimit: 2,
          giveUp: async (data, error) => void givenUp.push({ data, message: (error as Error).message }),
        },
      ),
    );
    await queue.send("test-job", { n: 1 });
    await vi.advanceTimersByTimeAsync(4 * 60_000);
    expect(attempts).toBe(3);
    // Told once, after the last attempt, with its data and the last error.
    expect(givenUp).toEqual([{ data: { n: 1 }, message: "still down" }]);
    expect(outcomes.at(-1)?.outcome).toBe("failed");
    expect(lines.filter((l) => l.level === "error").map((l) => l.message)).toEqual([
      "job test-job failed after 3 attempt(s)",
    ]);
  });

  it("keeps one job per key waiting; a send while it runs queues the next", async () => {
    const seen: number[] = [];
    let release!: () => void;
    queue.define(
      definition(
        async ({ n }) => {
          seen.push(n);
          if (n === 1) await new Promise<void>((resolve) => (release = resolve));
        },
        { coalesceByKey: true },
      ),
    );
    await queue.send("test-job", { n: 1 }, { key: "p1", delaySeconds: 1 });
    await queue.send("test-job", { n: 2 }, { key: "p1", delaySeconds: 1 });
    await queue.send("test-job", { n: 3 }, { key: "p2", delaySeconds: 1 });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(seen).toEqual([1, 3]);
    // Job 1 is running: a new send for its key waits behind it.
    await queue.send("test-job", { n: 4 }, { key: "p1" });
    await vi.advanceTimersByTimeAsync(10);
    expect(seen).toEqual([1, 3, 4]);
    release();
    await vi.advanceTimersByTimeAsync(10);
    expect(outcomes.filter((o) => o.outcome === "completed")).toHaveLength(3);
  });

  it("runs a schedule every interval, never two of one schedule waiting at once", async () => {
    let runs = 0;
    queue.define(definition(async () => void runs++, { coalesceByKey: true }));
    queue.schedule("test-job", 10);
    await queue.start();
    await vi.advanceTimersByTimeAsync(9 * 60_000);
    expect(runs).toBe(0);
    await vi.advanceTimersByTimeAsync(21.5 * 60_000);
    expect(runs).toBe(3);
  });

  it("does not give up a job that fails while the server stops: the next start resumes it", async () => {
    const givenUp: unknown[] = [];
    let fail!: () => void;
    queue.define(
      definition(() => new Promise<void>((_, reject) => (fail = () => reject(new Error("shutting down")))), {
        retryLimit: 0,
        giveUp: async (data) => void givenUp.push(data),
      }),
    );
    await queue.send("test-job", { n: 1 });
    await vi.advanceTimersByTimeAsync(10);
    const stopping = queue.stop();
    fail();
    await vi.advanceTimersByTimeAsync(10);
    await stopping;
    expect(givenUp).toEqual([]);
  });

  it("stop() waits for a running job and drops the waiting ones", async () => {
    const seen: number[] = [];
    let release!: () => void;
    queue.define(
      definition(async ({ n }) => {
        seen.push(n);
        if (n === 1) await new Promise<void>((resolve) => (release = resolve));
      }),
    );
    await queue.send("test-job", { n: 1 });
    await queue.send("test-job", { n: 2 }, { delaySeconds: 30 });
    await vi.advanceTimersByTimeAsync(10);
    let stopped = false;
    const stopping = queue.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(stopped).toBe(false);
    release();
    await stopping;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(seen).toEqual([1]);
  });

  it("runs at most `concurrency` jobs of a type at once; the others wait their turn, in order", async () => {
    const started: number[] = [];
    const finish = new Map<number, () => void>();
    let running = 0;
    let most = 0;
    queue.define(
      definition(
        async ({ n }) => {
          started.push(n);
          running++;
          most = Math.max(most, running);
          await new Promise<void>((resolve) => finish.set(n, resolve));
          running--;
        },
        { concurrency: 2 },
      ),
    );
    let others = 0;
    queue.define({ ...definition(async () => void others++), name: "other-job" });
    try {
      for (const n of [1, 2, 3, 4, 5]) await queue.send("test-job", { n });
      await queue.send("other-job", { n: 0 });
      await vi.advanceTimersByTimeAsync(10);
      expect(started).toEqual([1, 2]);
      expect(await queue.depth()).toMatchObject({ "test-job": { waiting: 3, running: 2 } });
      // Another type is not held up by this one's limit.
      expect(others).toBe(1);
      finish.get(2)!();
      await vi.advanceTimersByTimeAsync(10);
      expect(started).toEqual([1, 2, 3]);
      finish.get(1)!();
      finish.get(3)!();
      await vi.advanceTimersByTimeAsync(10);
      expect(started).toEqual([1, 2, 3, 4, 5]);
    } finally {
      // Whatever happened, nothing is left holding stop() in afterEach.
      for (const done of finish.values()) done();
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(most).toBe(2);
    expect(outcomes.filter((o) => o.name === "test-job" && o.outcome === "completed")).toHaveLength(5);
    expect(await queue.depth()).toMatchObject({ "test-job": { waiting: 0, running: 0 } });
  });

  it("a retry waits for a free slot like any other job", async () => {
    const started: string[] = [];
    let release!: () => void;
    let failedOnce = false;
    queue.define(
      definition(
        async ({ n }) => {
          started.push(`${n}`);
          if (n === 1 && !failedOnce) {
            failedOnce = true;
            throw new Error("flaky");
          }
          if (n === 2) await new Promise<void>((resolve) => (release = resolve));
        },
        { concurrency: 1 },
      ),
    );
    await queue.send("test-job", { n: 1 });
    await queue.send("test-job", { n: 2 }, { delaySeconds: 1 });
    try {
      // Job 1 fails at once; its retry is due while job 2 runs, and waits for it.
      await vi.advanceTimersByTimeAsync(60_000);
      expect(started).toEqual(["1", "2"]);
    } finally {
      release();
    }
    await vi.advanceTimersByTimeAsync(10);
    expect(started).toEqual(["1", "2", "1"]);
  });

  it("refuses a job type it does not know", async () => {
    await expect(queue.send("no-such-job", {})).rejects.toThrow("no job type named no-such-job is defined");
  });
});

describe("mail with retries", () => {
  const message: MailMessage = { to: "a@example.com", subject: "Verify", text: "https://x/verify", html: "" };

  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("sends at once when the transport works", async () => {
    const sent: MailMessage[] = [];
    const transport = { send: async (m: MailMessage) => void sent.push(m) };
    const queue = new InProcessQueue(recordingLogger().logger);
    queue.define(mailJob(transport));
    await queuedMailer(transport, queue, recordingLogger().logger).send(message);
    expect(sent).toEqual([message]);
    expect((await queue.depth())[MAIL_JOB]).toEqual({ waiting: 0, running: 0 });
    await queue.stop();
  });

  it("queues a message the transport refused and delivers it on a retry; the sender does not fail", async () => {
    const sent: MailMessage[] = [];
    let down = true;
    const transport = {
      send: async (m: MailMessage) => {
        if (down) throw new Error("connect ECONNREFUSED 127.0.0.1:25");
        sent.push(m);
      },
    };
    const { logger, lines } = recordingLogger();
    const queue = new InProcessQueue(logger);
    queue.define(mailJob(transport));
    await queuedMailer(transport, queue, logger).send(message);
    expect(sent).toEqual([]);
    expect(lines.map((l) => l.message)).toContain(
      "mail to a@example.com failed, queued for retries: connect ECONNREFUSED 127.0.0.1:25",
    );
    // The queued job's first run fails too; the server comes back before the retry.
    await vi.advanceTimersByTimeAsync(10);
    down = false;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent).toEqual([message]);
    await queue.stop();
  });

  it("fails the sender when the message cannot even be queued", async () => {
    const transport = {
      send: async () => {
        throw new Error("SMTP down");
      },
    };
    const queue = new InProcessQueue(recordingLogger().logger);
    await queue.stop();
    const broken = { ...queue, send: async () => Promise.reject(new Error("database down")) };
    await expect(
      queuedMailer(transport, broken as unknown as InProcessQueue, recordingLogger().logger).send(message),
    ).rejects.toThrow("SMTP down");
  });
});
