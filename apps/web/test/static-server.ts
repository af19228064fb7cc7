// A static file server for tests: serves a directory on 127.0.0.1 at a free port, like a plain
// mirror (nginx, S3 website, Artifactory's "generic" repository) would, optionally behind HTTP
// basic auth. Used to serve repositories built in a test with reprepro and createrepo_c.
import { createReadStream, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, normalize, sep } from "node:path";

export interface StaticServer {
  /** http://127.0.0.1:PORT/ (with the trailing slash). */
  url: string;
  /** The paths asked for, in order (for asserting what a client fetched). */
  requests: string[];
  stop(): Promise<void>;
}

export interface StaticServerOptions {
  /** Require these credentials (HTTP basic auth); a wrong or missing pair gets 401. */
  basicAuth?: { username: string; password: string };
  /** Answer this status for a path instead of the file (e.g. 500 to fake an outage). */
  statusFor?: (path: string) => number | undefined;
}

export async function startStaticServer(
  root: string,
  options: StaticServerOptions = {},
): Promise<StaticServer> {
  const requests: string[] = [];
  const expected = options.basicAuth
    ? `Basic ${Buffer.from(`${options.basicAuth.username}:${options.basicAuth.password}`).toString("base64")}`
    : undefined;
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? "/", "http://localhost").pathname);
    requests.push(path);
    if (expected !== undefined && request.headers.authorization !== expected) {
      response.writeHead(401, { "www-authenticate": 'Basic realm="test"', "content-type": "text/plain" });
      response.end("unauthorized\n");
      return;
    }
    const status = options.statusFor?.(path);
    if (status !== undefined) {
      response.writeHead(status, { "content-type": "text/plain" });
      response.end(`status ${status}\n`);
      return;
    }
    const file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root.endsWith(sep) ? root : `${root}${sep}`)) {
      response.writeHead(403).end();
      return;
    }
    let size: number;
    try {
      const stat = statSync(file);
      if (!stat.isFile()) throw new Error("not a file");
      size = stat.size;
    } catch {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("not found\n");
      return;
    }
    response.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(size) });
    if (request.method === "HEAD") {
      response.end();
      return;
    }
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
