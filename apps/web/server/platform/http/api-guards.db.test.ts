// What every /api request passes before a route sees it, as an attacker or a careless client
// meets it: cookie-authenticated writes from another origin, without an origin or as text/plain
// are refused (the same request with an API key works); JSON bodies are bounded; unknown routes
// answer JSON 404/405 without logging a stack; a multipart upload over the limit answers 413 at
// once and stores nothing; look-alike names are refused.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bearer,
  createApiKey,
  createTestApp,
  databaseKind,
  onboardedUser,
  storedState,
  type TestApp,
} from "../../../test/harness.ts";
import { collectLeftovers } from "../../maintenance.ts";

let app: TestApp;
let cookie: string;
let key: Record<string, string>;
const errorsLogged: unknown[] = [];
const LIMIT = 1000;

beforeAll(async () => {
  app = await createTestApp({ MAX_UPLOAD_BYTES: String(LIMIT) });
  const user = await onboardedUser(app, "guarded");
  cookie = user.cookie;
  key = bearer(await createApiKey(app, user.userId, { projects: "*", access: "publish" }));
  const created = await app.request("/api/v1/projects", {
    method: "POST",
    headers: { ...key, "content-type": "application/json" },
    body: JSON.stringify({ slug: "vault", name: "Vault" }),
  });
  expect(created.status).toBe(201);
  const release = await app.request("/api/v1/projects/vault/releases", {
    method: "POST",
    headers: { ...key, "content-type": "application/json" },
    body: JSON.stringify({ version: "1.0.0" }),
  });
  expect(release.status).toBe(201);
  const logger = app.services.logger;
  const error = logger.error.bind(logger);
  logger.error = (...args: Parameters<typeof logger.error>) => {
    errorsLogged.push(args);
    error(...args);
  };
});
afterAll(async () => {
  await app?.close();
});

async function code(res: Response) {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

const projectCount = async () =>
  Number(
    (
      await app.services.database.db
        .selectFrom("project")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe(`cookie-authenticated writes (${databaseKind})`, () => {
  const newProject = (
    headers: Record<string, string>,
    body = JSON.stringify({ slug: "forged", name: "F" }),
  ) => app.request("/api/v1/projects", { method: "POST", headers, body, cookie });

  it("refuses a write from a page on another origin of the same site", async () => {
    const before = await projectCount();
    const res = await newProject({ origin: "http://localhost:3001", "content-type": "application/json" });
    expect(res.status).toBe(403);
    expect(await code(res)).toBe("INVALID_ORIGIN");
    expect(await projectCount()).toBe(before);
  });

  it("refuses a write that names no origin at all", async () => {
    const res = await newProject({ origin: "", "content-type": "application/json" });
    expect(res.status).toBe(403);
    expect(await code(res)).toBe("INVALID_ORIGIN");
  });

  it("takes the Referer's origin when the browser sends no Origin", async () => {
    const res = await newProject({
      origin: "",
      referer: "http://evil.example/page",
      "content-type": "application/json",
    });
    expect(res.status).toBe(403);
  });

  it("refuses a text/plain body from the right origin (a form can send that cross-site)", async () => {
    const res = await newProject({ origin: "http://localhost:3000", "content-type": "text/plain" });
    expect(res.status).toBe(415);
    expect(await code(res)).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("refuses a cross-origin yank and API key creation, which an API key may do", async () => {
    const yank = (headers: Record<string, string>, withCookie: boolean) =>
      app.request("/api/v1/projects/vault/releases/1.0.0/yank", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ reason: "broken" }),
        cookie: withCookie ? cookie : undefined,
      });
    expect((await yank({ origin: "http://localhost:3001" }, true)).status).toBe(403);
    const keys = await app.request("/api/v1/keys", {
      method: "POST",
      headers: { origin: "http://localhost:3001", "content-type": "application/json" },
      body: JSON.stringify({ name: "stolen", projects: "*", access: "publish", expiresInDays: null }),
      cookie,
    });
    expect(keys.status).toBe(403);
    // The same yank with an API key and no origin at all works; so does the app's own page.
    expect((await yank({ ...key, origin: "" }, false)).status).toBe(200);
    const unyank = await app.request("/api/v1/projects/vault/releases/1.0.0/unyank", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
      cookie,
    });
    expect(unyank.status).toBe(200);
  });

  it("lets an API key send JSON as text/plain from anywhere, as curl -d does", async () => {
    const res = await app.request("/api/v1/projects", {
      method: "POST",
      headers: { ...key, origin: "", "content-type": "text/plain" },
      body: JSON.stringify({ slug: "scripted", name: "Scripted" }),
    });
    expect(res.status).toBe(201);
  });

  it("creates the project from the app's own origin with JSON", async () => {
    const res = await newProject(
      { "content-type": "application/json" },
      JSON.stringify({ slug: "mine", name: "M" }),
    );
    expect(res.status).toBe(201);
  });
});

describe(`request bodies (${databaseKind})`, () => {
  it("answers a 2 MB JSON body with 413 before reading it", async () => {
    const body = JSON.stringify({ slug: "huge", name: "H", description: "x".repeat(2 * 1024 * 1024) });
    const res = await app.request("/api/v1/projects", {
      method: "POST",
      headers: { ...key, "content-type": "application/json" },
      body,
    });
    expect(res.status).toBe(413);
    expect(await code(res)).toBe("PAYLOAD_TOO_LARGE");
  });

  it("answers a streamed JSON body that grows past 1 MiB with 413", async () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"slug":"huge","name":"'));
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x61));
        sent += 64 * 1024;
        if (sent > 4 * 1024 * 1024) controller.close();
      },
    });
    const res = await app.request("/api/v1/projects", {
      method: "POST",
      headers: { ...key, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
  });
});

describe(`unknown API routes (${databaseKind})`, () => {
  it.each([
    ["GET", "/api/v1/nothing-here", 404, "NOT_FOUND"],
    ["GET", "/api/elsewhere", 404, "NOT_FOUND"],
    ["PUT", "/api/v1/projects", 405, "METHOD_NOT_ALLOWED"],
    ["DELETE", "/api/v1/keys", 405, "METHOD_NOT_ALLOWED"],
    ["POST", "/api/openapi.json", 405, "METHOD_NOT_ALLOWED"],
  ])("answers %s %s with JSON %i %s and logs no error", async (method, path, status, expected) => {
    const before = errorsLogged.length;
    const res = await app.request(path, { method, headers: key });
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await code(res)).toBe(expected);
    if (status === 405) expect(res.headers.get("allow")).toMatch(/GET|POST/);
    expect(errorsLogged.length).toBe(before);
  });

  it("answers a project slug no project could have with 400 INVALID_SLUG", async () => {
    const res = await app.request("/api/v1/projects/Not_A_Slug", { headers: key });
    expect(res.status).toBe(400);
    expect(await code(res)).toBe("INVALID_SLUG");
  });
});

describe(`multipart uploads over the limit (${databaseKind})`, () => {
  const boundary = "----packyard-test-boundary";
  const part = (filename: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;

  it("answers 413 at once while the body is still coming, and keeps not even the file before it", async () => {
    const before = await storedState(app, ["release_file", "blob"]);
    const encoder = new TextEncoder();
    let cancelled = false;
    // A first small file, then a second that never ends: the answer must not wait for it.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(`${part("small.txt")}small file\r\n${part("endless.bin")}`));
      },
      pull(controller) {
        controller.enqueue(new Uint8Array(4096).fill(0x62));
      },
      cancel() {
        cancelled = true;
      },
    });
    const res = await app.request("/api/v1/projects/vault/releases/1.0.0/files", {
      method: "POST",
      headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: "half",
      cookie,
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await code(res)).toBe("PAYLOAD_TOO_LARGE");
    expect(cancelled).toBe(true);
    // The first file's row is gone; its bytes go with the next sweep (decision 022).
    const after = await storedState(app, ["release_file", "blob"]);
    expect(after.release_file).toBe(before.release_file);
    expect((await collectLeftovers(app.services, 0)).unreferencedBlobs).toBe(
      (after.blob ?? 0) - (before.blob ?? 0),
    );
    expect(await storedState(app, ["release_file", "blob"])).toEqual(before);
    const listed = await app.request("/api/v1/projects/vault/releases/1.0.0/files", { headers: key });
    expect((await listed.json()).files).toEqual([]);
  });

  it("refuses a declared length over the limit before reading any of it", async () => {
    const res = await app.request("/api/v1/projects/vault/releases/1.0.0/files", {
      method: "POST",
      headers: {
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(LIMIT + 2 * 1024 * 1024),
      },
      body: `${part("x.bin")}x\r\n--${boundary}--\r\n`,
      cookie,
    });
    expect(res.status).toBe(413);
  });
});

describe(`look-alike names (${databaseKind})`, () => {
  const put = (version: string, filename: string) =>
    app.request(`/api/v1/projects/vault/releases/${version}/files/${encodeURIComponent(filename)}`, {
      method: "PUT",
      headers: key,
      body: "content",
    });

  it.each([
    ["a right-to-left override", "tool\u202Egpj.exe"],
    ["a zero-width space", "tool\u200B.tar.gz"],
    ["only spaces", "   "],
    ["a trailing space", "tool.tar.gz "],
    ["a trailing dot", "tool.tar.gz."],
  ])("refuses a filename with %s", async (_what, filename) => {
    const res = await put("2.0.0", filename);
    expect(res.status).toBe(400);
    expect(await code(res)).toBe("INVALID_FILENAME");
  });

  it("refuses the version LATEST, reserved like latest", async () => {
    const res = await put("LATEST", "tool.bin");
    expect(res.status).toBe(400);
    expect(await code(res)).toBe("INVALID_VERSION");
  });

  it("keeps one name for the composed and decomposed forms of café", async () => {
    expect((await put("3.0.0", "caf\u00e9.txt")).status).toBe(201);
    const again = await put("3.0.0", "cafe\u0301.txt");
    expect(again.status).toBe(409);
    expect(await code(again)).toBe("FILE_EXISTS");
    const download = await app.request(
      `/dl/guarded/vault/releases/3.0.0/${encodeURIComponent("cafe\u0301.txt")}`,
    );
    expect(download.status).toBe(200);
    expect(await download.text()).toBe("content");
  });
});
