// One delivery attempt against receivers started here: the answer's first kilobyte kept (as
// text PostgreSQL accepts), redirects not followed, no answer in time is a failure, and
// loopback refused unless private targets are allowed.
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { postWebhook } from "./deliver.ts";

const servers: Server[] = [];
async function receiver(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const post = (url: string, options: { allowPrivate?: boolean; timeoutMs?: number } = {}) =>
  postWebhook({ url, body: '{"event":"ping"}', headers: { "x-test": "1" }, allowPrivate: true, ...options });

describe("postWebhook", () => {
  it("sends the body with its headers and keeps the first kilobyte of the answer", async () => {
    let seen: { body: string; type?: string; test?: string } | undefined;
    const url = await receiver((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen = {
          body: Buffer.concat(chunks).toString(),
          type: req.headers["content-type"],
          test: String(req.headers["x-test"]),
        };
        res.writeHead(202).end(`${"a\0".repeat(600)}${"b".repeat(5000)}`);
      });
    });
    const result = await post(url);
    expect(seen).toEqual({ body: '{"event":"ping"}', type: "application/json", test: "1" });
    expect(result).toMatchObject({ ok: true, status: 202, error: null });
    expect(result.responseExcerpt).toBe(`${"a".repeat(512)}`);
  });

  it("does not follow redirects", async () => {
    const target = await receiver((_req, res) => res.writeHead(200).end("followed"));
    const url = await receiver((_req, res) => res.writeHead(302, { location: target }).end());
    expect(await post(url)).toMatchObject({ ok: false, status: 302, error: "Redirects are not followed" });
  });

  it("fails an attempt that gets no answer in time, and one that cannot connect", async () => {
    const url = await receiver(() => {});
    const silent = await post(url, { timeoutMs: 200 });
    expect(silent).toMatchObject({ ok: false, status: null });
    expect(silent.error).toMatch(/No answer within|timed out/);
    const closed = await post("http://127.0.0.1:1/hook");
    expect(closed).toMatchObject({ ok: false, status: null, error: expect.stringContaining("ECONNREFUSED") });
  });

  it("refuses loopback and link-local targets unless private targets are allowed", async () => {
    let hits = 0;
    const url = await receiver((_req, res) => {
      hits++;
      res.writeHead(200).end();
    });
    const refused = await post(url, { allowPrivate: false });
    expect(refused).toMatchObject({ ok: false, status: null });
    expect(refused.error).toMatch(/^Refused: 127\.0\.0\.1 is a loopback, link-local or private address/);
    const byName = await post(url.replace("127.0.0.1", "localhost"), { allowPrivate: false });
    expect(byName.error).toMatch(/^Refused: localhost resolves to (127\.0\.0\.1|::1)/);
    expect((await post("http://169.254.169.254/latest/meta-data/", { allowPrivate: false })).error).toMatch(
      /^Refused/,
    );
    expect(hits).toBe(0);
    expect(await post(url)).toMatchObject({ ok: true, status: 200 });
  });
});
