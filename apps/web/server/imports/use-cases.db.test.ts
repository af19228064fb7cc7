// startImport called directly, on SQLite and PostgreSQL: a caller who does not reach the project
// starts nothing, queues nothing and leaves no entry; a start is one `import.started` entry
// naming who started it, without the source's token, and its job is queued once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, databaseKind, publishingProject, type TestApp } from "../../test/harness.ts";
import { startImport } from "./use-cases.ts";

let app: TestApp;
let ownerId: string;
let strangerId: string;
const queued: unknown[] = [];

beforeAll(async () => {
  app = await createTestApp();
  ({ userId: ownerId } = await publishingProject(app, "importer", "landing"));
  ({ userId: strangerId } = await publishingProject(app, "passerby", "theirs"));
});
afterAll(async () => {
  await app?.close();
});

const db = () => app.services.database.db;
// The job is not run here: what it does is run.db.test.ts's.
const deps = () => ({
  db: db(),
  jobs: {
    send: async (_name: string, data: object) => {
      queued.push(data);
    },
  },
  serverSecret: app.services.config.secret,
});
const person = (userId: string) => ({
  actor: { kind: "session" as const, userId },
  address: "198.51.100.60",
});
const source = {
  kind: "github-releases" as const,
  repository: "octo/tool",
  token: "ghp_secret-token",
  includePrereleases: true,
  includeDrafts: false,
};
const entries = () =>
  db().selectFrom("audit_event").selectAll().where("action", "=", "import.started").execute();
const imports = () => db().selectFrom("import").selectAll().execute();

describe(`startImport (${databaseKind})`, () => {
  it("refuses a caller who does not reach the project: no import, no job, no entry", async () => {
    await expect(
      startImport(deps(), person(strangerId), { project: "importer/landing", source }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await imports()).toHaveLength(0);
    expect(queued).toHaveLength(0);
    expect(await entries()).toHaveLength(0);
  });

  it("records one entry by the person who started it, without the token, and queues the job once", async () => {
    const row = await startImport(deps(), person(ownerId), { project: "importer/landing", source });
    expect(queued).toEqual([{ importId: row.id }]);
    const found = await entries();
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      actor_kind: "user",
      actor_user_id: ownerId,
      address: "198.51.100.60",
      project_slug: "landing",
      target: "octo/tool",
    });
    expect(found[0]!.details).not.toContain("ghp_secret-token");
    expect(JSON.parse(found[0]!.details)).toMatchObject({
      importId: row.id,
      source: { kind: "github-releases", repository: "octo/tool", authenticated: true },
    });
  });
});
