// Prometheus metrics (prom-client), one registry per server process, scraped at /metrics.
// What is measured, and where:
//   packyard_http_requests_total, packyard_http_request_duration_seconds
//                                    every request, when its response is over (platform/http/request-log.ts)
//   packyard_download_bytes_total    body bytes of /dl responses handed to the client's connection
//   packyard_upload_bytes_total      body bytes of file uploads read by the server
//   packyard_publish_duration_seconds, packyard_publish_failures_total
//                                    repository builds (repositories/publisher.ts)
//   packyard_publish_queue           builds running and waiting, read at scrape time
//   packyard_jobs_total, packyard_job_duration_seconds
//                                    background jobs run by this process, by type and outcome
//   packyard_jobs                    jobs waiting and running by type, for the whole queue
//                                    (PostgreSQL: as pg-boss last counted them), at scrape time
//   process_*, nodejs_*              prom-client's default process metrics
import { timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { countDirectBody } from "../http/upload-body.ts";
import type { JobObserver } from "../jobs/queue.ts";

/** What the publisher reports (repositories/publisher.ts). */
export interface PublishMetrics {
  published(seconds: number): void;
  failed(): void;
}

export interface Metrics extends PublishMetrics, JobObserver {
  readonly registry: Registry;
  request(labels: { method: string; route: string; status: number }, seconds: number): void;
  downloaded(bytes: number): void;
  uploaded(bytes: number): void;
  /** Where the publish queue gauge reads its value at scrape time. */
  watchPublishQueue(read: () => { running: number; waiting: number }): void;
  /** Where the job gauge reads the queue's depth at scrape time. */
  watchJobs(read: () => Promise<Record<string, { waiting: number; running: number }>>): void;
}

/** Seconds: from a fast index hit to a large download on a slow connection. */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const PUBLISH_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Requests are added up in plain numbers (RequestTally) and handed to the registry when it is
  // scraped: recording one costs a Map lookup, not prom-client's label hashing (decision 041).
  const tally = new RequestTally();
  new Counter({
    name: "packyard_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
    collect() {
      for (const entry of tally.entries.values()) {
        if (entry.count === entry.reported) continue;
        this.inc(entry.labels, entry.count - entry.reported);
        entry.reported = entry.count;
      }
    },
  });
  registry.registerMetric(tally.histogram() as never);
  let downloaded = 0;
  new Counter({
    name: "packyard_download_bytes_total",
    help: "Body bytes of /dl responses handed to clients' connections (files, repositories, keys)",
    registers: [registry],
    collect() {
      if (downloaded > 0) this.inc(downloaded);
      downloaded = 0;
    },
  });
  const uploadBytes = new Counter({
    name: "packyard_upload_bytes_total",
    help: "Body bytes of release file uploads received (PUT and multipart POST)",
    registers: [registry],
  });
  const publishDuration = new Histogram({
    name: "packyard_publish_duration_seconds",
    help: "Duration of a project's repository build, from start to the new generation served",
    buckets: PUBLISH_BUCKETS,
    registers: [registry],
  });
  const publishFailures = new Counter({
    name: "packyard_publish_failures_total",
    help: "Repository builds that failed",
    registers: [registry],
  });
  let readQueue: () => { running: number; waiting: number } = () => ({ running: 0, waiting: 0 });
  new Gauge({
    name: "packyard_publish_queue",
    help: "Repository builds running and waiting to run (state: running, waiting)",
    labelNames: ["state"] as const,
    registers: [registry],
    collect() {
      const { running, waiting } = readQueue();
      this.set({ state: "running" }, running);
      this.set({ state: "waiting" }, waiting);
    },
  });
  const jobs = new Counter({
    name: "packyard_jobs_total",
    help: "Background job attempts run by this process, by job type and outcome (completed, retried, failed)",
    labelNames: ["name", "outcome"] as const,
    registers: [registry],
  });
  const jobDuration = new Histogram({
    name: "packyard_job_duration_seconds",
    help: "Duration of background job attempts run by this process, by job type",
    labelNames: ["name"] as const,
    buckets: PUBLISH_BUCKETS,
    registers: [registry],
  });
  let readJobs: () => Promise<Record<string, { waiting: number; running: number }>> = async () => ({});
  new Gauge({
    name: "packyard_jobs",
    help: "Background jobs waiting and running in the queue, by job type and state",
    labelNames: ["name", "state"] as const,
    registers: [registry],
    async collect() {
      // A scrape must not fail because the queue could not be counted this time.
      const depth = await readJobs().catch(() => ({}));
      for (const [name, { waiting, running }] of Object.entries(depth)) {
        this.set({ name, state: "waiting" }, waiting);
        this.set({ name, state: "running" }, running);
      }
    },
  });

  return {
    registry,
    request({ method, route, status }, seconds) {
      tally.add(method, route, status, seconds);
    },
    downloaded: (bytes) => {
      downloaded += bytes;
    },
    uploaded: (bytes) => uploadBytes.inc(bytes),
    published: (seconds) => publishDuration.observe(seconds),
    failed: () => publishFailures.inc(),
    watchPublishQueue(read) {
      readQueue = read;
    },
    job(name, outcome, seconds) {
      jobs.inc({ name, outcome });
      jobDuration.observe({ name }, seconds);
    },
    watchJobs(read) {
      readJobs = read;
    },
  };
}

interface TallyEntry {
  labels: { method: string; route: string; status: string };
  count: number;
  /** The part of count already handed to the counter. */
  reported: number;
  sum: number;
  /** Observations per bucket of REQUEST_BUCKETS (not cumulative), the last one +Inf's. */
  buckets: number[];
}

/**
 * packyard_http_requests_total and packyard_http_request_duration_seconds in plain numbers:
 * `add` is all a request costs; the histogram is written out at scrape time in prom-client's
 * shape (the same lines its Histogram gives: _bucket with le, _sum, _count).
 */
class RequestTally {
  readonly entries = new Map<string, TallyEntry>();

  add(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = {
        labels: { method, route, status: String(status) },
        count: 0,
        reported: 0,
        sum: 0,
        buckets: new Array<number>(REQUEST_BUCKETS.length + 1).fill(0),
      };
      this.entries.set(key, entry);
    }
    entry.count++;
    entry.sum += seconds;
    let i = 0;
    while (i < REQUEST_BUCKETS.length && seconds > REQUEST_BUCKETS[i]!) i++;
    entry.buckets[i]!++;
  }

  /** The histogram as a metric the registry reads (get); registered beside prom-client's own. */
  histogram() {
    const name = "packyard_http_request_duration_seconds";
    const entries = this.entries;
    return {
      name,
      help: "Time from a request's arrival to its response's last byte handed to the connection",
      type: "histogram",
      aggregator: "sum",
      reset() {
        entries.clear();
      },
      async get() {
        const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
        for (const { labels, count, sum, buckets } of entries.values()) {
          let cumulative = 0;
          for (let i = 0; i <= REQUEST_BUCKETS.length; i++) {
            cumulative += buckets[i]!;
            const le = i < REQUEST_BUCKETS.length ? REQUEST_BUCKETS[i]! : "+Inf";
            values.push({ labels: { ...labels, le }, value: cumulative, metricName: `${name}_bucket` });
          }
          values.push({ labels, value: sum, metricName: `${name}_sum` });
          values.push({ labels, value: count, metricName: `${name}_count` });
        }
        return { name, help: this.help, type: this.type, values, aggregator: this.aggregator };
      },
    };
  }
}

/**
 * /metrics. With METRICS_TOKEN set it answers a request bearing `Authorization: Bearer <token>`
 * and 401 to any other. Without it, only a direct connection from the loopback interface is
 * answered (403 otherwise): a request that came through a proxy (it carries X-Forwarded-For,
 * Forwarded or X-Real-IP) is refused even from 127.0.0.1, since a proxy on the same machine
 * would otherwise open the metrics to the whole internet.
 */
export function metricsHandler(
  metrics: () => Metrics,
  token: string | undefined,
  socketAddress: (c: Context) => string | undefined,
): MiddlewareHandler {
  const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
  return async (c) => {
    if (expected) {
      const given = Buffer.from(c.req.header("authorization") ?? "");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        c.header("WWW-Authenticate", 'Bearer realm="metrics"');
        return c.json(
          {
            error: {
              code: "UNAUTHENTICATED",
              message: "Send the metrics token: Authorization: Bearer <METRICS_TOKEN>",
            },
          },
          401,
        );
      }
    } else if (!isDirectLoopback(c, socketAddress(c))) {
      return c.json(
        {
          error: {
            code: "FORBIDDEN",
            message: "Without METRICS_TOKEN, /metrics answers only to direct connections from this machine",
          },
        },
        403,
      );
    }
    const { registry } = metrics();
    return c.body(await registry.metrics(), 200, {
      "content-type": registry.contentType,
      "cache-control": "no-store",
    });
  };
}

function isDirectLoopback(c: Context, address: string | undefined): boolean {
  if (c.req.header("x-forwarded-for") || c.req.header("forwarded") || c.req.header("x-real-ip")) return false;
  // No socket: called in memory by the process itself (app.request in tests).
  if (address === undefined) return true;
  return isLoopback(address);
}

export function isLoopback(address: string): boolean {
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return v4.startsWith("127.") || address === "::1";
}

/**
 * Counts the request body bytes an upload route's handler reads (packyard_upload_bytes_total),
 * as they arrive: a long upload shows while it runs, one cut off counts what was received.
 */
export function countUploadBytes(metrics: () => Metrics | undefined): MiddlewareHandler {
  return async (c, next) => {
    const m = metrics();
    // Read straight from the socket by the upload route, and counted there (platform/http/upload-body.ts).
    const upload = c.req.method === "PUT" || c.req.method === "POST";
    if (m && upload && countDirectBody(c.req.raw, c.env, (bytes) => m.uploaded(bytes))) return next();
    const body = c.req.raw.body;
    if (body && m && upload) {
      const reader = body.getReader();
      const counted = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            try {
              const { done, value } = await reader.read();
              if (done) {
                controller.close();
                return;
              }
              m.uploaded(value.byteLength);
              controller.enqueue(value);
            } catch (error) {
              controller.error(error);
            }
          },
          cancel: (reason) => reader.cancel(reason),
        },
        { highWaterMark: 0 },
      );
      c.req.raw = new Request(c.req.raw, { body: counted, duplex: "half" } as RequestInit);
    }
    await next();
  };
}
