// packyard orgs …, projects create --owner and projects transfer against a real Packyard: an
// organization whose publisher pushes to its project by OWNER/PROJECT (decision 040).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptInvitation } from "../../../web/server/orgs/storage.ts";
import { type LiveServer, publisher, startLiveServer } from "../test-support/live-server.ts";
import { cliHome, runCli } from "../test-support/run-cli.ts";

let server: LiveServer;
let alice: Awaited<ReturnType<typeof publisher>>;
let bob: Awaited<ReturnType<typeof publisher>>;
const work = mkdtempSync(join(tmpdir(), "packyard-cli-orgs-"));
const file = join(work, "tool.tar.gz");

beforeAll(async () => {
  server = await startLiveServer();
  alice = await publisher(server, "alice");
  bob = await publisher(server, "bob");
  writeFileSync(file, randomBytes(5_000));
});

afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await server?.close();
});

const run = (token: string, ...args: string[]) =>
  runCli(args, { env: { ...cliHome(), PACKYARD_SERVER: server.url, PACKYARD_TOKEN: token } });

describe("packyard orgs", () => {
  it("creates an organization, invites a publisher who pushes to its project as OWNER/PROJECT", async () => {
    expect((await run(alice.token, "orgs", "list")).stdout).toBe(
      "No organizations yet: packyard orgs create SLUG --name NAME\n",
    );
    const created = await run(alice.token, "orgs", "create", "acme", "--name", "Acme Inc");
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe("Created organization acme (Acme Inc); you are its owner\n");
    const taken = await run(bob.token, "orgs", "create", "alice");
    expect(taken.code).toBe(5);
    expect(taken.stderr).toBe(
      "error: slug: This name is already taken by a user or an organization (NAME_TAKEN)\n",
    );

    const invited = await run(
      alice.token,
      "orgs",
      "invite",
      "acme",
      "bob@example.com",
      "--role",
      "publisher",
    );
    expect(invited.code, invited.stderr).toBe(0);
    const link = invited.stdout.match(/\/invitations\/([A-Za-z0-9_-]+)$/m);
    expect(invited.stdout).toMatch(/^Invited bob@example\.com to acme as publisher; the link was mailed:$/m);
    // bob opens the link signed in (the browser's part).
    await acceptInvitation(server.services.database.db, { kind: "session", userId: bob.userId }, link![1]!);

    const members = await run(bob.token, "orgs", "members", "acme");
    expect(members.stdout).toMatch(/^USERNAME\s+ROLE\s+JOINED\s+NAME$/m);
    expect(members.stdout).toMatch(/^alice\s+owner\s+/m);
    expect(members.stdout).toMatch(/^bob\s+publisher\s+/m);
    const list = await run(bob.token, "orgs", "list", "--json");
    expect(JSON.parse(list.stdout).organizations).toMatchObject([
      { slug: "acme", role: "publisher", memberCount: 2 },
    ]);

    // Only admins and owners create its projects.
    const refused = await run(bob.token, "projects", "create", "widget", "--owner", "acme");
    expect(refused.code).toBe(3);
    const project = await run(
      alice.token,
      "projects",
      "create",
      "widget",
      "--owner",
      "acme",
      "--visibility",
      "private",
    );
    expect(project.stdout).toBe("Created private project acme/widget\n");

    const pushed = await run(bob.token, "push", "acme/widget", "1.0.0", file);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toMatch(/acme\/widget 1\.0\.0/);

    // alice's own widget next to acme's: a slug alone is ambiguous, OWNER/PROJECT is not.
    expect((await run(alice.token, "projects", "create", "widget")).code).toBe(0);
    const ambiguous = await run(alice.token, "releases", "list", "widget");
    expect(ambiguous.code).toBe(5);
    expect(ambiguous.stderr).toMatch(/name it as owner\/widget \(AMBIGUOUS_PROJECT\)\n$/);
    const releases = await run(alice.token, "releases", "list", "acme/widget");
    expect(releases.stdout).toMatch(/^1\.0\.0\s/m);
    expect((await run(alice.token, "releases", "list", "alice/widget")).stdout).toBe(
      "alice/widget has no releases yet\n",
    );
  });

  it("transfers a project to the organization", async () => {
    expect((await run(alice.token, "projects", "create", "gadget")).code).toBe(0);
    const moved = await run(alice.token, "projects", "transfer", "alice/gadget", "acme");
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toBe("Moved alice/gadget to acme/gadget\n");
    const notAdmin = await run(bob.token, "projects", "transfer", "acme/gadget", "bob");
    expect(notAdmin.code).toBe(3);
    expect(notAdmin.stderr).toMatch(/\(FORBIDDEN\)\n$/);
    const list = JSON.parse((await run(alice.token, "projects", "list", "--json")).stdout);
    expect(list.projects.map((p: { owner: string; slug: string }) => `${p.owner}/${p.slug}`).sort()).toEqual([
      "acme/gadget",
      "acme/widget",
      "alice/widget",
    ]);
  });

  it("an organization's key says whose it is, and pushes to the organization's projects", async () => {
    const created = await alice.api("/api/v1/orgs/acme/keys", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "ci", access: "publish", projects: "*" }),
    });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: { key: string } };
    const whoami = await run(key.key, "whoami");
    expect(whoami.stdout).toContain("User:     acme (an organization's key)");
    expect(whoami.stdout).toContain("acme/gadget (public)");
    const pushed = await run(key.key, "push", "acme/gadget", "2.0.0", file);
    expect(pushed.code, pushed.stderr).toBe(0);
    const elsewhere = await run(key.key, "push", "alice/widget", "2.0.0", file);
    expect(elsewhere.code).toBe(3);
    expect(elsewhere.stderr).toBe(
      "error: This token belongs to acme, not alice: it can only reach acme's projects (acme/widget) (WRONG_OWNER)\n",
    );
  });
});
