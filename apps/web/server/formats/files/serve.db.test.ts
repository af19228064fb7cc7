// Downloads over a real socket: a client that stalls does not make the server buffer the file,
// a download cut off before its last byte is not counted, and a file whose bytes are missing
// from storage is an uncacheable 500, never a 200 that ends early.
import { rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind } from "../../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../../test/live-server.ts";

const MiB = 1024 * 1024;
const BIG = 200 * MiB;
let server: LiveServer;
let api: Awaited<ReturnType<typeof publisher>>["api"];

/** A body of `size` bytes made of one reused chunk: the test itself holds 1 MiB, not the file. */
function zeros(size: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(MiB);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= size) return controller.close();
      const n = Math.min(MiB, size - sent);
      controller.enqueue(n === MiB ? chunk : chunk.subarray(0, n));
      sent += n;
    },
  });
}

async function upload(version: string, filename: string, body: BodyInit, size: number) {
  const res = await api(`/api/v1/projects/big/releases/${version}/files/${filename}`, {
    method: "PUT",
    body,
    headers: { "content-length": String(size) },
    duplex: "half",
  } as RequestInit);
  expect(res.status).toBe(201);
  return (await res.json()).file as { sha256: string };
}

async function downloads(version: string, filename: string): Promise<number> {
  const res = await api(`/api/v1/projects/big/releases/${version}/files`);
  const { files } = (await res.json()) as { files: { filename: string; downloads: number }[] };
  return files.find((f) => f.filename === filename)!.downloads;
}

/** A raw HTTP/1.1 GET whose reading the test controls: resolves once `bytes` have arrived. */
function rawGet(path: string, bytes: number): Promise<{ socket: Socket; received: () => number }> {
  return new Promise((resolve, reject) => {
    let received = 0;
    let resolved = false;
    const socket = connect(server.port, "127.0.0.1", () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    socket.on("error", (error) => {
      if (!resolved) reject(error);
    });
    socket.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (!resolved && received >= bytes) {
        resolved = true;
        resolve({ socket, received: () => received });
      }
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  server = await startLiveServer();
  ({ api } = await publisher(server, "hauler"));
  const res = await api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "big", name: "Big" }),
  });
  expect(res.status).toBe(201);
  await upload("1.0.0", "big.bin", zeros(BIG), BIG);
}, 120_000);
afterAll(async () => {
  await server?.close();
});

describe(`downloads over a socket (${databaseKind})`, () => {
  it("holds a stalled client's 200 MB download to little extra server memory", async () => {
    const before = process.memoryUsage().rss;
    const { socket, received } = await rawGet("/dl/hauler/big/releases/1.0.0/big.bin", 1);
    socket.pause();
    // Long enough for a server that ignores back-pressure to read the whole file into memory.
    await sleep(1500);
    const grown = process.memoryUsage().rss - before;
    socket.destroy();
    expect(received()).toBeLessThan(BIG);
    expect(grown).toBeLessThan(32 * MiB);
  });

  it("does not count a download cut off halfway, and counts one read to the last byte", async () => {
    const start = await downloads("1.0.0", "big.bin");
    const { socket } = await rawGet("/dl/hauler/big/releases/1.0.0/big.bin", 2 * MiB);
    // The client stops reading for a second, then hangs up: a server that reads ahead has read
    // the whole file by then, but only 2 MiB and the socket buffers reached the client.
    socket.pause();
    await sleep(1000);
    socket.destroy();
    await sleep(300);
    expect(await downloads("1.0.0", "big.bin")).toBe(start);

    const { socket: whole, received } = await rawGet("/dl/hauler/big/releases/1.0.0/big.bin", 1);
    await new Promise((r) => whole.once("close", r));
    expect(received()).toBeGreaterThan(BIG);
    // Counting follows delivery; give the write a moment.
    for (let i = 0; i < 50 && (await downloads("1.0.0", "big.bin")) === start; i++) await sleep(20);
    expect(await downloads("1.0.0", "big.bin")).toBe(start + 1);
  });

  it("answers a file whose bytes are gone from storage with an uncacheable 500", async () => {
    const bytes = new TextEncoder().encode("soon missing\n");
    const { sha256 } = await upload("1.0.1", "lost.txt", bytes, bytes.byteLength);
    rmSync(join(server.services.config.blobDir, "sha256", sha256.slice(0, 2), sha256.slice(2, 4), sha256));
    const res = await fetch(`${server.url}/dl/hauler/big/releases/1.0.1/lost.txt`);
    expect(res.status).toBe(500);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("etag")).toBeNull();
    expect(await res.json()).toEqual({
      error: { code: "BLOB_MISSING", message: expect.stringContaining("missing from storage") },
    });
  });
});
