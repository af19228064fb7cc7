// Trusted publishing through the API (issue 40, docs/ci/), against a CI issuer the test starts
// (its own keys, discovery document and JWKS), as a CI job and as an attacker would use it: a
// publisher trusted by a project; a valid ID token trades for a publish token that uploads, and
// nothing more; wrong audience, expired, not yet valid, wrong repository, wrong ref, unknown key
// id, forged signature, a replayed token and an untrusted issuer refused with their codes; the
// audit log of every exchange with its claims; GitLab; several accounts trusting one repository.
// SQLite, and PostgreSQL when configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CiIssuer, githubClaims, gitlabClaims, startCiIssuer } from "../../test/ci-issuer.ts";
import {
  createTestApp,
  databaseKind,
  onboardedUser,
  postJson,
  TEST_ORIGIN,
  type TestApp,
} from "../../test/harness.ts";
import { setOperatorPlan } from "../billing/plan.ts";

let app: TestApp;
let ci: CiIssuer;
let offsetMs = 0;
let owner: { cookie: string; userId: string; username: string };
let other: { cookie: string; userId: string; username: string };

async function call(
  method: string,
  path: string,
  body?: unknown,
  auth: { cookie?: string; bearer?: string } = {},
) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
  const res = await app.request(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(auth.cookie ? { cookie: auth.cookie } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const exchange = (token: string, extra: Record<string, unknown> = {}) =>
  call("POST", "/api/v1/trusted-publishing/token", { token, ...extra });

const valid = (claims: Record<string, unknown> = {}) =>
  ci.sign({ ...githubClaims(), aud: TEST_ORIGIN, ...claims });

async function createProject(slug: string, cookie: string) {
  const res = await postJson(app, "/api/v1/projects", { slug, name: slug, visibility: "private" }, cookie);
  expect(res.status).toBe(201);
}

async function trust(project: string, body: Record<string, unknown>, cookie = owner.cookie) {
  const res = await call("POST", `/api/v1/projects/${project}/trusted-publishers`, body, { cookie });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.trustedPublisher as { id: string };
}

async function auditOf(project: string, cookie = owner.cookie) {
  const res = await call("GET", `/api/v1/projects/${project}/audit`, undefined, { cookie });
  expect(res.status).toBe(200);
  return res.body.entries as {
    action: string;
    target: string | null;
    details: { code?: string; reason?: string; verified?: boolean; claims?: Record<string, unknown> };
    actor: { kind: string; key: { name: string | null; start: string | null } | null };
  }[];
}

beforeAll(async () => {
  ci = await startCiIssuer();
  app = await createTestApp(
    { WEBHOOK_ALLOW_PRIVATE: "true" },
    { clock: () => new Date(Date.now() + offsetMs) },
  );
  owner = await onboardedUser(app, "vendor");
  other = await onboardedUser(app, "othervendor");
  await setOperatorPlan(app.services.database.db, owner.userId, "pro");
  await setOperatorPlan(app.services.database.db, other.userId, "pro");
  await createProject("app", owner.cookie);
  await createProject("lib", owner.cookie);
  await createProject("theirs", other.cookie);
});
afterAll(async () => {
  await app?.close();
  await ci?.stop();
});

describe(`trusted publishing (${databaseKind})`, () => {
  it("is managed by the project's managers: add, list, validate, remove", async () => {
    const added = await trust("app", {
      provider: "github",
      issuer: ci.issuer,
      repository: "Octo/App",
      workflow: "release.yml",
      ref: "refs/tags/v*",
    });
    const listed = await call("GET", "/api/v1/projects/app/trusted-publishers", undefined, {
      cookie: owner.cookie,
    });
    expect(listed.status).toBe(200);
    expect(listed.body.trustedPublishers).toEqual([
      expect.objectContaining({
        id: added.id,
        provider: "github",
        issuer: ci.issuer,
        repository: "octo/app",
        workflow: "release.yml",
        environment: null,
        ref: "refs/tags/v*",
        lastUsedAt: null,
      }),
    ]);
    const invalid = await call(
      "POST",
      "/api/v1/projects/app/trusted-publishers",
      { provider: "github", repository: "not-a-repository" },
      { cookie: owner.cookie },
    );
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe("VALIDATION_FAILED");
    const duplicate = await call(
      "POST",
      "/api/v1/projects/app/trusted-publishers",
      {
        provider: "github",
        issuer: ci.issuer,
        repository: "octo/app",
        workflow: "release.yml",
        ref: "refs/tags/v*",
      },
      { cookie: owner.cookie },
    );
    expect(duplicate.status).toBe(400);
    // Another account neither sees nor changes them.
    const foreign = await call("GET", "/api/v1/projects/vendor/app/trusted-publishers", undefined, {
      cookie: other.cookie,
    });
    expect(foreign.status).toBe(404);
    const removedByOther = await call(
      "DELETE",
      `/api/v1/projects/vendor/app/trusted-publishers/${added.id}`,
      undefined,
      {
        cookie: other.cookie,
      },
    );
    expect(removedByOther.status).toBe(404);
    const entries = await auditOf("app");
    expect(entries.find((e) => e.action === "trusted_publishing.publisher_added")?.target).toBe(
      "GitHub Actions octo/app (release.yml, ref refs/tags/v*)",
    );
  });

  it("trades a valid ID token for a publish token that uploads to the project, logged with the claims", async () => {
    const res = await exchange(await valid());
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.token).toMatch(/^pkp_/);
    expect(res.body.projects).toEqual(["vendor/app"]);
    const expiresIn = Date.parse(res.body.expiresAt) - (Date.now() + offsetMs);
    expect(expiresIn).toBeGreaterThan(14 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(15 * 60_000);
    const put = await app.request("/api/v1/projects/app/releases/1.0.0/files/app-1.0.0.tar.gz", {
      method: "PUT",
      headers: { authorization: `Bearer ${res.body.token}` },
      body: "release bytes",
    });
    expect(put.status).toBe(201);
    const entries = await auditOf("app");
    const granted = entries.find((e) => e.action === "trusted_publishing.granted")!;
    expect(granted.details.claims).toMatchObject({
      iss: ci.issuer,
      repository: "octo/app",
      ref: "refs/tags/v1.0.0",
      workflow_ref: "octo/app/.github/workflows/release.yml@refs/tags/v1.0.0",
      aud: TEST_ORIGIN,
    });
    expect(granted.actor.key?.name).toBe("GitHub Actions octo/app (release.yml, ref refs/tags/v*)");
    const uploaded = entries.find((e) => e.action === "file.uploaded")!;
    expect(uploaded.actor).toMatchObject({
      kind: "key",
      key: {
        name: "GitHub Actions octo/app (release.yml, ref refs/tags/v*)",
        start: res.body.token.slice(0, 8),
      },
    });
    const listed = await call("GET", "/api/v1/projects/app/trusted-publishers", undefined, {
      cookie: owner.cookie,
    });
    expect(listed.body.trustedPublishers[0].lastUsedAt).not.toBeNull();
  });

  it("gives a token that publishes only: no managing, no other project, no account actions, and not after 15 minutes", async () => {
    const { body } = await exchange(await valid());
    const bearer = body.token as string;
    const manage = await call("PATCH", "/api/v1/projects/app", { name: "Renamed" }, { bearer });
    expect(manage.status).toBe(403);
    expect(manage.body.error.code).toBe("KEY_SCOPE");
    const trustMore = await call(
      "POST",
      "/api/v1/projects/app/trusted-publishers",
      { provider: "github", repository: "evil/repo" },
      { bearer },
    );
    expect(trustMore.status).toBe(403);
    const entitlement = await call("POST", "/api/v1/projects/app/entitlements", { name: "x" }, { bearer });
    expect(entitlement.status).toBe(403);
    const lib = await app.request("/api/v1/projects/lib/releases/1.0.0/files/lib.tar.gz", {
      method: "PUT",
      headers: { authorization: `Bearer ${bearer}` },
      body: "lib",
    });
    expect([403, 404]).toContain(lib.status);
    const theirs = await app.request("/api/v1/projects/othervendor/theirs/releases/1.0.0/files/x.tar.gz", {
      method: "PUT",
      headers: { authorization: `Bearer ${bearer}` },
      body: "x",
    });
    expect([403, 404]).toContain(theirs.status);
    const newProject = await call("POST", "/api/v1/projects", { slug: "sneaky", name: "sneaky" }, { bearer });
    expect(newProject.status).toBe(403);
    const keys = await call("POST", "/api/v1/keys", { name: "persist" }, { bearer });
    expect(keys.status).toBe(403);
    // It reads the project it publishes to.
    const read = await call("GET", "/api/v1/projects/app/releases", undefined, { bearer });
    expect(read.status).toBe(200);
    offsetMs += 15 * 60_000 + 1000;
    try {
      const late = await call("GET", "/api/v1/projects/app/releases", undefined, { bearer });
      expect(late.status).toBe(401);
      expect(late.body.error.message).toMatch(/expired/);
    } finally {
      offsetMs -= 15 * 60_000 + 1000;
    }
  });

  it("refuses wrong audience, expired, not yet valid, unknown key, forged signature, wrong repository and wrong ref with their codes, logged", async () => {
    const cases: [string, string, string | RegExp][] = [
      [await valid({ aud: "https://elsewhere.example" }), "OIDC_TOKEN_INVALID", /another audience/],
      [
        await ci.sign({ ...githubClaims(), aud: TEST_ORIGIN }, { issuedAt: -1200, expiresIn: -600 }),
        "OIDC_TOKEN_INVALID",
        /expired/,
      ],
      [
        await ci.sign({ ...githubClaims(), aud: TEST_ORIGIN }, { notBefore: 900, expiresIn: 1200 }),
        "OIDC_TOKEN_INVALID",
        /not valid yet/,
      ],
      [
        await ci.sign({ ...githubClaims(), aud: TEST_ORIGIN }, { kid: "unknown-kid" }),
        "OIDC_TOKEN_INVALID",
        /does not publish/,
      ],
      [
        await ci.sign({ ...githubClaims(), aud: TEST_ORIGIN }, { foreignKey: true }),
        "OIDC_TOKEN_INVALID",
        /does not publish/,
      ],
      [
        await valid(githubClaims("octo/other")),
        "OIDC_NO_TRUSTED_PUBLISHER",
        /No project trusts the repository octo\/other/,
      ],
      [
        await valid(githubClaims("octo/app", "refs/heads/main")),
        "OIDC_NO_TRUSTED_PUBLISHER",
        /not this token's ref \(refs\/heads\/main\)/,
      ],
      [
        await valid(githubClaims("octo/app", "refs/tags/v1.0.0", "build.yml")),
        "OIDC_NO_TRUSTED_PUBLISHER",
        /workflow/,
      ],
      ["not.a.jwt", "OIDC_TOKEN_INVALID", /not a JSON Web Token/],
    ];
    for (const [token, code, message] of cases) {
      const res = await exchange(token);
      expect(res.body.error?.code, `${code}: ${JSON.stringify(res.body)}`).toBe(code);
      expect(res.status).toBe(code === "OIDC_NO_TRUSTED_PUBLISHER" ? 403 : 401);
      expect(res.body.error.message).toMatch(message);
    }
    // A forged signature with the published key id: refused too.
    const kid = JSON.parse(Buffer.from((await valid()).split(".")[0]!, "base64url").toString()).kid;
    const forged = await exchange(
      await ci.sign({ ...githubClaims(), aud: TEST_ORIGIN }, { foreignKey: true, kid }),
    );
    expect(forged.body.error.code).toBe("OIDC_TOKEN_INVALID");
    expect(forged.body.error.message).toMatch(/signature/);
    // Each refusal for octo/app is in the project's log with its code and claims.
    const refused = (await auditOf("app")).filter((e) => e.action === "trusted_publishing.refused");
    const codes = refused.map((e) => e.details.code);
    expect(codes).toEqual(expect.arrayContaining(["OIDC_TOKEN_INVALID", "OIDC_NO_TRUSTED_PUBLISHER"]));
    const wrongRef = refused.find((e) => e.details.claims?.ref === "refs/heads/main")!;
    expect(wrongRef.details).toMatchObject({ code: "OIDC_NO_TRUSTED_PUBLISHER", verified: true });
    const forgedEntry = refused.find((e) => /signature/.test(e.details.reason ?? ""))!;
    expect(forgedEntry.details.verified).toBe(false);
  });

  it("refuses a replayed token, and a token from an issuer no project trusts without fetching its keys", async () => {
    const token = await valid();
    expect((await exchange(token)).status).toBe(200);
    const again = await exchange(token);
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe("OIDC_TOKEN_REPLAYED");
    const replayed = (await auditOf("app")).find((e) => e.details.code === "OIDC_TOKEN_REPLAYED");
    expect(replayed?.action).toBe("trusted_publishing.refused");
    const stranger = await startCiIssuer();
    try {
      const res = await exchange(await stranger.sign({ ...githubClaims(), aud: TEST_ORIGIN }));
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("OIDC_NO_TRUSTED_PUBLISHER");
      expect(stranger.fetches()).toEqual({ discovery: 0, jwks: 0 });
    } finally {
      await stranger.stop();
    }
  });

  it("accepts GitLab CI tokens for a trusted project path and branch", async () => {
    await trust("lib", { provider: "gitlab", issuer: ci.issuer, projectPath: "group/lib", ref: "main" });
    const ok = await exchange(await ci.sign({ ...gitlabClaims("group/lib", "main"), aud: TEST_ORIGIN }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.projects).toEqual(["vendor/lib"]);
    const tag = await exchange(
      await ci.sign({ ...gitlabClaims("group/lib", "v1", "tag"), aud: TEST_ORIGIN }),
    );
    expect(tag.body.error.code).toBe("OIDC_NO_TRUSTED_PUBLISHER");
  });

  it("asks for the owner when projects of several accounts trust one repository, and stops after the publisher is removed", async () => {
    await trust("theirs", { provider: "github", issuer: ci.issuer, repository: "octo/app" }, other.cookie);
    const ambiguous = await exchange(await valid());
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body.error.code).toBe("OIDC_AMBIGUOUS_OWNER");
    const mine = await exchange(await valid(), { owner: "vendor" });
    expect(mine.body.projects).toEqual(["vendor/app"]);
    const theirs = await exchange(await valid(), { owner: "othervendor" });
    expect(theirs.body.projects).toEqual(["othervendor/theirs"]);
    const listed = await call("GET", "/api/v1/projects/theirs/trusted-publishers", undefined, {
      cookie: other.cookie,
    });
    const id = listed.body.trustedPublishers[0].id;
    const removed = await call("DELETE", `/api/v1/projects/theirs/trusted-publishers/${id}`, undefined, {
      cookie: other.cookie,
    });
    expect(removed.status).toBe(204);
    const after = await exchange(await valid(), { owner: "othervendor" });
    expect(after.body.error.code).toBe("OIDC_NO_TRUSTED_PUBLISHER");
    expect((await auditOf("theirs", other.cookie)).map((e) => e.action)).toContain(
      "trusted_publishing.publisher_removed",
    );
  });
});
