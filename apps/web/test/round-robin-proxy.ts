// A round-robin HTTP proxy: each request to the next backend, as a load balancer does. Used by
// the scale-mode test (apps/web/server/scale-mode.db.test.ts) and bench/scale. Changing
// `backends` takes a server out of the rotation (a balancer noticing it died).
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export class RoundRobinProxy {
  readonly server: Server;
  backends: string[] = [];
  #next = 0;

  constructor() {
    this.server = createServer((req, res) => this.#forward(req, res));
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  #forward(req: IncomingMessage, res: ServerResponse) {
    const backend = new URL(this.backends[this.#next++ % this.backends.length]!);
    const upstream = request(
      {
        host: backend.hostname,
        port: backend.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, "x-forwarded-for": req.socket.remoteAddress ?? "" },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on("error", () => res.destroy());
      },
    );
    upstream.on("error", () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { "content-type": "text/plain" }).end("backend unreachable\n");
    });
    req.pipe(upstream);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
