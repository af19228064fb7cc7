// The request log and metrics alone, without the rest of Packyard's work per download (which
// costs about 1 ms of CPU and hides them in bench/downloads/run.ts on a shared machine): one
// process serves a /dl-shaped route from memory through @hono/node-server, as Packyard does, on
// two ports — one app with platform/http/request-log.ts in front (pino writing to a file, real prom-client
// metrics), one without — and a keep-alive client in the same process fetches from each in
// alternating rounds. The difference of CPU time per request between the two is the cost.
//
//   node bench/downloads/overhead.ts [--size 1024] [--requests 20000] [--concurrency 10] [--rounds 7]
//        [--level info|warn] [--async-log]
import { Agent, request } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import pino from "pino";
import { pageRoutes, requestLog } from "../../apps/web/server/platform/http/request-log.ts";
import { createLogger } from "../../apps/web/server/platform/observability/logger.ts";
import { createMetrics } from "../../apps/web/server/platform/observability/metrics.ts";

const { values: args } = parseArgs({
  options: {
    size: { type: "string", default: "1024" },
    requests: { type: "string", default: "20000" },
    concurrency: { type: "string", default: "10" },
    rounds: { type: "string", default: "7" },
    level: { type: "string", default: "info" },
    "async-log": { type: "boolean", default: false },
  },
});
const body = new Uint8Array(Number(args.size)).fill(7);
const path = "/dl/bench/files/releases/1.0.0/payload.bin";

function app(observed: boolean) {
  const a = new Hono();
  // Both apps have what Packyard has in front of every route anyway: a middleware setting a
  // response header (security-headers.ts).
  a.use(async (c, next) => {
    await next();
    c.res.headers.set("X-Content-Type-Options", "nosniff");
  });
  if (observed) {
    const logger = createLogger(args.level as "info", pinoFile("/tmp/packyard-overhead.log"));
    const metrics = createMetrics();
    a.use(
      requestLog({
        logger: () => logger,
        metrics: () => metrics,
        trustProxy: false,
        pageRoute: pageRoutes({ routes: {} }),
      }),
    );
  }
  a.get("/dl/:username/:slug/releases/:version/:filename", () => {
    // A stream, as /dl files are.
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(body);
        controller.close();
      },
    });
    return new Response(stream, { headers: { "content-length": String(body.byteLength) } });
  });
  return a;
}

/** What createLogger writes to for stderr (synchronous writes), on a file; --async-log: pino's default. */
function pinoFile(file: string) {
  return pino.destination({ dest: file, sync: !args["async-log"] });
}

async function listen(a: Hono): Promise<number> {
  return new Promise((resolve) => {
    const server = serve({ fetch: a.fetch, hostname: "127.0.0.1", port: 0 }, () =>
      resolve((server.address() as AddressInfo).port),
    );
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: Number(args.concurrency) });
function get(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    request({ host: "127.0.0.1", port, path, agent }, (res) => {
      res.on("data", () => {});
      res.on("end", resolve);
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}

/** CPU µs per request over `n` requests at the configured concurrency. */
async function measure(port: number, n: number): Promise<number> {
  let next = 0;
  const start = process.cpuUsage();
  await Promise.all(
    Array.from({ length: Number(args.concurrency) }, async () => {
      while (next++ < n) await get(port);
    }),
  );
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const plain = await listen(app(false));
const observed = await listen(app(true));
const n = Number(args.requests);
await measure(plain, n / 4);
await measure(observed, n / 4);
const diffs: number[] = [];
const rows: string[] = [];
for (let r = 0; r < Number(args.rounds); r++) {
  // Alternate the order, so neither always runs first.
  let without: number;
  let withLog: number;
  if (r % 2) {
    withLog = await measure(observed, n);
    without = await measure(plain, n);
  } else {
    without = await measure(plain, n);
    withLog = await measure(observed, n);
  }
  diffs.push(withLog - without);
  rows.push(
    `round ${r + 1}: without ${without.toFixed(1)} µs, with ${withLog.toFixed(1)} µs CPU per request`,
  );
}
const sorted = [...diffs].sort((x, y) => x - y);
process.stderr.write(`${rows.join("\n")}\n`);
process.stdout.write(
  `${args.rounds} rounds of ${n} GETs of a ${args.size}-byte body, ${args.concurrency} at a time (client and server in one process), LOG_LEVEL=${args.level}${args["async-log"] ? ", asynchronous log writes" : ""}: ` +
    `request log and metrics cost ${sorted[(sorted.length - 1) >> 1]!.toFixed(1)} µs CPU per request (median of the rounds' differences; min ${sorted[0]!.toFixed(1)}, max ${sorted.at(-1)!.toFixed(1)})\n`,
);
process.exit(0);
