// A webhook receiver for tests: a node:http server on a loopback port that keeps every request
// and answers each with the next scripted status (200 once the script is used up), or, hanging,
// never answers (the client gives up); it counts the requests open at once.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  json: { id: string; event: string; data: Record<string, unknown>; [key: string]: unknown };
}

export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Statuses to answer the next requests with, in order. */
  script(statuses: number[]): void;
  /** true: requests are read and kept but never answered; false: answered again. */
  hang(on: boolean): void;
  /** Requests open now (answered or not, until their connection closes), and the most at once. */
  readonly open: number;
  readonly maxOpen: number;
  /** Resolves with the first request (already received or still to come) that matches. */
  waitFor(match: (request: ReceivedWebhook) => boolean): Promise<ReceivedWebhook>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let statuses: number[] = [];
  let hanging = false;
  let open = 0;
  let maxOpen = 0;
  const waiters: { match: (r: ReceivedWebhook) => boolean; resolve: (r: ReceivedWebhook) => void }[] = [];
  const server = createServer((req, res) => {
    // Open from its first bytes until the connection closes (a hanging one: when the client
    // gives up). Counted from the request, not the accept, which can be seen before the close
    // of the previous connection in the same turn of the event loop.
    open++;
    maxOpen = Math.max(maxOpen, open);
    res.on("close", () => open--);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const request = { headers: req.headers, body, json: JSON.parse(body) };
      received.push(request);
      if (!hanging) {
        const status = statuses.shift() ?? 200;
        res
          .writeHead(status, { "content-type": "text/plain" })
          .end(status === 200 ? "thanks" : "receiver broke");
      }
      for (const waiter of [...waiters]) {
        if (waiter.match(request)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(request);
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    script(next) {
      statuses = [...next];
    },
    hang(on) {
      hanging = on;
    },
    get open() {
      return open;
    },
    get maxOpen() {
      return maxOpen;
    },
    waitFor(match) {
      const found = received.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
