// packyard entitlements …: a customer's token made, used with curl's credentials, limited,
// disabled, rotated and deleted from the command line, against a real Packyard.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiveServer, publisher, startLiveServer } from "../test-support/live-server.ts";
import { cliHome, runCli } from "../test-support/run-cli.ts";

let server: LiveServer;
let bob: Awaited<ReturnType<typeof publisher>>;

beforeAll(async () => {
  // Plan limits off: the command, not the plan, is under test (the plan is the server's tests').
  server = await startLiveServer({ PLAN_LIMITS: "off" });
  bob = await publisher(server, "bob");
  await bob.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "gizmo", name: "Gizmo", visibility: "private" }),
  });
  const put = await bob.api("/api/v1/projects/gizmo/releases/1.0.0/files/gizmo.tar.gz", {
    method: "PUT",
    body: "gizmo bytes",
  });
  expect(put.status).toBe(201);
});

afterAll(async () => {
  await server?.close();
});

const run = (...args: string[]) =>
  runCli(args, { env: { ...cliHome(), PACKYARD_SERVER: server.url, PACKYARD_TOKEN: bob.token } });

/** The release file fetched as `curl -u TOKEN:` fetches it. */
const fetchWith = (token: string) =>
  fetch(`${server.url}/dl/bob/gizmo/releases/1.0.0/gizmo.tar.gz`, {
    headers: { authorization: `Basic ${Buffer.from(`${token}:`).toString("base64")}` },
  }).then(async (res) => ({ status: res.status, text: await res.text() }));

describe("packyard entitlements", () => {
  it("creates a limited token whose secret reads the project, then disables, rotates, shows and deletes it", async () => {
    const created = await run("entitlements", "create", "gizmo", "Initech", "--max-downloads", "2", "--json");
    expect(created.code, created.stderr).toBe(0);
    const { entitlement, token } = JSON.parse(created.stdout);
    expect(token).toMatch(/^pke_/);
    expect(entitlement).toMatchObject({ name: "Initech", maxDownloads: 2, projects: ["bob/gizmo"] });

    expect(await fetchWith(token)).toEqual({ status: 200, text: "gizmo bytes" });

    const list = await run("entitlements", "list", "gizmo");
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(`${entitlement.id}\\s+Initech\\s+pke_\\S+\\s+enabled\\s+1/2 downloads`),
    );

    expect((await run("entitlements", "disable", "gizmo", entitlement.id)).stdout).toBe(
      "Initech is disabled.\n",
    );
    expect((await fetchWith(token)).status).toBe(401);
    expect((await run("entitlements", "enable", "gizmo", entitlement.id)).code).toBe(0);

    const rotated = await run("entitlements", "rotate", "gizmo", entitlement.id, "--overlap-hours", "0");
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/the old one has stopped\.\nThe secret is shown only now:\npke_\S+\n$/);
    const fresh = rotated.stdout.trim().split("\n").at(-1)!;
    expect((await fetchWith(token)).status).toBe(401);
    expect((await fetchWith(fresh)).status).toBe(200);
    // Its two downloads are used: refused with the limit's code.
    const over = await fetchWith(fresh);
    expect(over.status).toBe(403);
    expect(JSON.parse(over.text).error.code).toBe("ENTITLEMENT_LIMIT");

    const show = await run("entitlements", "show", "gizmo", entitlement.id, "--json");
    expect(show.code, show.stderr).toBe(0);
    const shown = JSON.parse(show.stdout);
    expect(shown.entitlement.downloads).toBe(2);
    expect(shown.usage).toHaveLength(1);
    expect(shown.usage[0]).toMatchObject({ downloads: 2, installs: 0, machines: 1 });

    expect((await run("entitlements", "delete", "gizmo", entitlement.id)).code).toBe(0);
    expect((await fetchWith(fresh)).status).toBe(401);
    expect((await run("entitlements", "delete", "gizmo", entitlement.id)).code).toBe(4);
  });

  it("refuses bad options with a usage error", async () => {
    const noProjects = await run("entitlements", "create", "acme", "X", "--org");
    expect(noProjects.code).toBe(2);
    expect(noProjects.stderr).toBe("error: --org needs --projects: the projects the token reads (USAGE)\n");
    const bad = await run("entitlements", "create", "gizmo", "X", "--max-downloads", "lots");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("error: --max-downloads must be a whole number (USAGE)\n");
  });
});
