// repomd.xml and repomd.xml.asc as one pair for a client, although a publish may switch
// generations between the two requests (decision 013): the signature comes from the generation
// of the repomd.xml last served on the same connection, or to the same address, or the one the
// client names (If-Match, ?repomd=). Each loop forces a publish between the two requests, so
// answering the signature from the newest generation fails on the first iteration. Real
// packages (rpmbuild), a real server on a port, signatures checked with gpgv; and real dnf.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import { gpgvVerify } from "@packyard/formats/openpgp/gpg-test-support.ts";
import { buildTestRpms, type TestRpms } from "@packyard/formats/rpm/testing/build-test-rpms.ts";
import { requireTools } from "@packyard/formats/test-support/system-tools.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dnfRoot } from "../../../test/dnf-client.ts";
import { databaseKind } from "../../../test/harness.ts";
import { type LiveServer, publisher, startLiveServer } from "../../../test/live-server.ts";
import { removeTempDirs } from "../../../test/temp-dirs.ts";

const hasTools = requireTools(["rpmbuild", "gpgv"]);
const hasDnf = hasTools && requireTools(["dnf", "rpm", "gpg"]);
const ITERATIONS = Number(process.env.YUM_ENTRY_ITERATIONS ?? 300);

let server: LiveServer;
let pub: Awaited<ReturnType<typeof publisher>>;
let rpms: TestRpms;
let keyring: Uint8Array;
/** Releases yanked now. */
const yanked = new Set<string>();

interface Answer {
  status: number;
  etag: string | undefined;
  cacheControl: string | undefined;
  body: Buffer;
  /** The client side of the connection that carried it. */
  port: number;
}

/** GET over `agent` (false: a connection of its own). */
function get(path: string, agent: Agent | false, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          etag: res.headers.etag,
          cacheControl: res.headers["cache-control"],
          body: Buffer.concat(chunks),
          port: res.socket?.localPort ?? req.socket?.localPort ?? 0,
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const repo = "/dl/pairs/entry/rpm/repodata";
const repomdOf = (agent: Agent | false, headers?: Record<string, string>) =>
  get(`${repo}/repomd.xml`, agent, headers);
const signatureOf = (agent: Agent | false, headers?: Record<string, string>, query = "") =>
  get(`${repo}/repomd.xml.asc${query}`, agent, headers);

/** A publish that changes the package list (a release yanked or unyanked), so repomd.xml changes. */
async function switchGeneration(release: "1.0.0" | "2.0.0" = "2.0.0") {
  const yank = !yanked.has(release);
  const res = await pub.api(`/api/v1/projects/entry/releases/${release}/${yank ? "yank" : "unyank"}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: yank ? JSON.stringify({ reason: "switching generations" }) : undefined,
  });
  expect(res.status).toBe(200);
  if (yank) yanked.add(release);
  else yanked.delete(release);
}

const sha256Hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** gpgv's verdict on the pair. */
function verifies(repomd: Answer, signature: Answer): boolean {
  const result = gpgvVerify(keyring, { "repomd.xml": repomd.body, "repomd.xml.asc": signature.body }, [
    "repomd.xml.asc",
    "repomd.xml",
  ]);
  return result.status === 0 && result.badSignatures === 0 && result.goodSigners.length > 0;
}

function keepAlive() {
  return new Agent({ keepAlive: true, maxSockets: 1 });
}

beforeAll(async () => {
  if (!hasTools) return;
  rpms = buildTestRpms();
  // No grace period: superseded generations beyond the last three go at once (the fallbacks).
  server = await startLiveServer({ APT_GRACE_SECONDS: "0" });
  pub = await publisher(server, "pairs");
  const created = await pub.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "entry", name: "entry", visibility: "public" }),
  });
  expect(created.status).toBe(201);
  for (const [version, path] of [
    ["1.0.0", rpms.alpha],
    ["2.0.0", rpms.beta],
  ] as const) {
    const res = await pub.api(`/api/v1/projects/entry/releases/${version}/files/${path.split("/").pop()}`, {
      method: "PUT",
      body: readFileSync(path),
    });
    expect(res.status).toBe(201);
  }
  keyring = new Uint8Array(await (await fetch(`${server.url}/dl/pairs/entry/keyring.gpg`)).arrayBuffer());
}, 120_000);
afterAll(async () => {
  await server?.close();
  rpms?.cleanup();
  removeTempDirs();
});

describe.runIf(hasTools)(`repomd.xml and its signature as one pair (${databaseKind})`, () => {
  it(`keeps the pair on one keep-alive connection with a publish between the two requests, ${ITERATIONS} times`, async () => {
    const agent = keepAlive();
    try {
      let previous = "";
      for (let i = 0; i < ITERATIONS; i++) {
        const repomd = await repomdOf(agent);
        expect(repomd.status).toBe(200);
        // Every iteration starts from the generation the previous one's publish made.
        expect(repomd.etag).not.toBe(previous);
        previous = repomd.etag!;
        await switchGeneration();
        const signature = await signatureOf(agent);
        expect(signature.status).toBe(200);
        expect(signature.port, "the same connection").toBe(repomd.port);
        expect(signature.etag, `iteration ${i}`).toBe(repomd.etag);
        expect(verifies(repomd, signature), `gpgv, iteration ${i}`).toBe(true);
      }
      // The signature newer requesters get is the newest one.
      const fresh = await repomdOf(agent);
      expect(fresh.etag).not.toBe(previous);
      expect(verifies(fresh, await signatureOf(agent))).toBe(true);
    } finally {
      agent.destroy();
    }
  }, 600_000);

  it("keeps the pair for a client opening a connection per request (dnf 4 does), from its address", async () => {
    for (let i = 0; i < Math.min(ITERATIONS, 50); i++) {
      const repomd = await repomdOf(false);
      await switchGeneration();
      const signature = await signatureOf(false);
      expect(signature.port).not.toBe(repomd.port);
      expect(signature.etag, `iteration ${i}`).toBe(repomd.etag);
      expect(verifies(repomd, signature), `gpgv, iteration ${i}`).toBe(true);
    }
  }, 300_000);

  it("prefers the connection's generation over a newer one served to the same address", async () => {
    const mine = keepAlive();
    const neighbour = keepAlive();
    try {
      const held = await repomdOf(mine);
      await switchGeneration();
      const newer = await repomdOf(neighbour);
      expect(newer.etag).not.toBe(held.etag);
      const signature = await signatureOf(mine);
      expect(signature.etag).toBe(held.etag);
      expect(verifies(held, signature)).toBe(true);
      // A new connection from that address: the highest generation served there.
      const other = await signatureOf(false);
      expect(other.etag).toBe(newer.etag);
      expect(verifies(newer, other)).toBe(true);
      expect(verifies(newer, await signatureOf(neighbour))).toBe(true);
    } finally {
      mine.destroy();
      neighbour.destroy();
    }
  }, 60_000);

  it("behind a proxy, pairs by forwarded client instead of by the proxy's pooled connection", async () => {
    const proxy = keepAlive();
    try {
      const first = { "x-forwarded-for": "198.51.100.1" };
      const second = { "x-forwarded-for": "198.51.100.2" };
      const held = await repomdOf(proxy, first);
      await switchGeneration();
      const newer = await repomdOf(proxy, second);
      expect(newer.etag).not.toBe(held.etag);
      const signature = await signatureOf(proxy, first);
      expect(signature.port).toBe(held.port);
      expect(signature.etag).toBe(held.etag);
      expect(verifies(held, signature)).toBe(true);
      expect((await signatureOf(proxy, second)).etag).toBe(newer.etag);
    } finally {
      proxy.destroy();
    }
  }, 60_000);

  it("answers the signature of the repomd.xml a client names with If-Match or ?repomd=, on a new connection", async () => {
    const held = await repomdOf(false);
    expect(held.etag).toBe(`"${sha256Hex(held.body)}"`);
    const sha = JSON.parse(held.etag!) as string;
    await switchGeneration();
    // Someone at this address fetched the newer one since: without naming it, that is the answer.
    const newer = await repomdOf(false);
    expect((await signatureOf(false)).etag).toBe(newer.etag);

    const matched = await signatureOf(false, { "if-match": held.etag! });
    expect(matched.status).toBe(200);
    expect(matched.etag).toBe(held.etag);
    expect(verifies(held, matched)).toBe(true);
    const listed = await signatureOf(false, { "if-match": `"${"0".repeat(64)}", ${held.etag}` });
    expect(listed.etag).toBe(held.etag);
    const named = await signatureOf(false, {}, `?repomd=${sha}`);
    expect(named.status).toBe(200);
    expect(named.etag).toBe(held.etag);
    expect(named.cacheControl).toBe("public, max-age=31536000, immutable");
    expect(verifies(held, named)).toBe(true);
    expect((await signatureOf(false, { "if-match": "*" })).etag).toBe(newer.etag);

    // Unknown, weak (If-Match compares strongly) or malformed: refused, never another signature.
    expect((await signatureOf(false, { "if-match": `"${"0".repeat(64)}"` })).status).toBe(412);
    expect((await signatureOf(false, { "if-match": `W/${held.etag}` })).status).toBe(412);
    expect((await signatureOf(false, { "if-match": held.etag! }, `?repomd=${"0".repeat(64)}`)).status).toBe(
      404,
    );
    expect((await signatureOf(false, { "if-match": newer.etag! }, `?repomd=${sha}`)).status).toBe(412);
    expect((await signatureOf(false, {}, "?repomd=nothex")).status).toBe(404);
  }, 60_000);

  it("falls back to the newest once the held generation is no longer served, and refuses to name it", async () => {
    const agent = keepAlive();
    try {
      const held = await repomdOf(agent);
      const sha = JSON.parse(held.etag!) as string;
      // Three newer generations and no grace period: the held one is pruned. Each lists other
      // packages than the held one did, so none has the same repomd.xml (a publish in the same
      // second with the same packages would).
      await switchGeneration("2.0.0");
      await switchGeneration("1.0.0");
      await switchGeneration("2.0.0");
      const newest = await repomdOf(false);
      const signature = await signatureOf(agent);
      expect(signature.etag).toBe(newest.etag);
      expect(verifies(newest, signature)).toBe(true);
      expect((await signatureOf(false, { "if-match": held.etag! })).status).toBe(412);
      expect((await signatureOf(false, {}, `?repomd=${sha}`)).status).toBe(404);
    } finally {
      agent.destroy();
    }
  }, 60_000);

  it("gives repomd.xml a strong ETag (its sha256) and answers If-None-Match with 304", async () => {
    const current = await repomdOf(false);
    expect(current.etag).toBe(`"${sha256Hex(current.body)}"`);
    const same = await repomdOf(false, { "if-none-match": current.etag! });
    expect(same.status).toBe(304);
    expect(same.body.byteLength).toBe(0);
    expect(same.etag).toBe(current.etag);
    expect((await repomdOf(false, { "if-none-match": `W/${current.etag}` })).status).toBe(304);
    await switchGeneration();
    const changed = await repomdOf(false, { "if-none-match": current.etag! });
    expect(changed.status).toBe(200);
    expect(changed.etag).not.toBe(current.etag);
  }, 60_000);

  it.runIf(hasDnf)(
    "real dnf with repo_gpgcheck=1 installs although a publish happens before each repomd.xml.asc it fetches",
    async () => {
      if (yanked.has("1.0.0")) await switchGeneration("1.0.0");
      // In front of the server: each request on a connection of its own, as dnf 4 makes them,
      // and a publish that switches generations before every signature is forwarded.
      let switches = 0;
      const forwarder = createServer(async (req, res) => {
        if (req.url?.endsWith("/repodata/repomd.xml.asc")) {
          await switchGeneration();
          switches++;
        }
        const { host: _host, connection: _connection, ...headers } = req.headers;
        const upstream = request(
          `${server.url}${req.url}`,
          { method: req.method, headers, agent: false },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        upstream.on("error", () => res.destroy());
        req.pipe(upstream);
      });
      await new Promise<void>((resolve) => forwarder.listen(0, "127.0.0.1", () => resolve()));
      try {
        const port = (forwarder.address() as { port: number }).port;
        const result = await dnfRoot().dnf(`http://127.0.0.1:${port}/dl/pairs/entry/rpm`, [
          "install",
          "packyard-alpha",
        ]);
        expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
        expect(switches).toBeGreaterThan(0);
      } finally {
        forwarder.close();
      }
    },
    180_000,
  );
});
