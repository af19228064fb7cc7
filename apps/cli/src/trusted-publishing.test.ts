// Trusted publishing from the command line, against a real Packyard and a CI issuer the test
// starts: `packyard push` in a GitHub Actions job (ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN, no
// Packyard secret) and in a GitLab job (PACKYARD_ID_TOKEN) publishes; PACKYARD_TOKEN still wins;
// a job the project does not trust is refused with the server's code.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CiIssuer, githubClaims, gitlabClaims, startCiIssuer } from "../../web/test/ci-issuer.ts";
import { type LiveServer, publisher, startLiveServer } from "./test-support/live-server.ts";
import { cliHome, runCli } from "./test-support/run-cli.ts";

let server: LiveServer;
let ci: CiIssuer;
let carol: Awaited<ReturnType<typeof publisher>>;
let file: string;

beforeAll(async () => {
  ci = await startCiIssuer(githubClaims("carol/widget", "refs/tags/v2.0.0"));
  server = await startLiveServer({ PLAN_LIMITS: "off", WEBHOOK_ALLOW_PRIVATE: "true" });
  carol = await publisher(server, "carol");
  const created = await carol.api("/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ slug: "widget", name: "Widget", visibility: "public" }),
  });
  expect(created.status).toBe(201);
  for (const body of [
    { provider: "github", issuer: ci.issuer, repository: "carol/widget", workflow: "release.yml", ref: "v*" },
    { provider: "gitlab", issuer: ci.issuer, projectPath: "carol-group/widget", ref: "main" },
  ]) {
    const trusted = await carol.api("/api/v1/projects/widget/trusted-publishers", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(trusted.status).toBe(201);
  }
  const home = cliHome();
  file = join(home.HOME!, "widget-2.0.0.tar.gz");
  writeFileSync(file, "widget two");
});

afterAll(async () => {
  await server?.close();
  await ci?.stop();
});

const files = async (version: string) => {
  const res = await carol.api(`/api/v1/projects/widget/releases/${version}`);
  return res.status === 200
    ? ((await res.json()) as { release: { files: { filename: string }[] } }).release.files
    : [];
};

describe("trusted publishing from CI", () => {
  it("pushes from GitHub Actions with the job's ID token and no stored secret", async () => {
    const result = await runCli(["push", "carol/widget", "2.0.0", file], {
      env: {
        ...cliHome(),
        PACKYARD_SERVER: server.url,
        ACTIONS_ID_TOKEN_REQUEST_URL: ci.requestUrl,
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: ci.requestToken,
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/Using trusted publishing: a publish token valid 15 minutes \(pkp_/);
    expect((await files("2.0.0")).map((f) => f.filename)).toEqual(["widget-2.0.0.tar.gz"]);
    const audit = (await (await carol.api("/api/v1/projects/widget/audit")).json()) as {
      entries: { action: string; details: { claims?: Record<string, unknown> } }[];
    };
    const granted = audit.entries.find((e) => e.action === "trusted_publishing.granted");
    expect(granted?.details.claims).toMatchObject({ repository: "carol/widget", aud: server.url });
  });

  it("pushes from GitLab CI with PACKYARD_ID_TOKEN, and whoami says where the token came from", async () => {
    const env = (token: string) => ({ ...cliHome(), PACKYARD_SERVER: server.url, PACKYARD_ID_TOKEN: token });
    const sign = () => ci.sign({ ...gitlabClaims("carol-group/widget", "main"), aud: server.url });
    const pushed = await runCli(["push", "carol/widget", "2.1.0", file], { env: env(await sign()) });
    expect(pushed.code, pushed.stderr).toBe(0);
    expect((await files("2.1.0")).length).toBe(1);
    const whoami = await runCli(["whoami", "--json"], { env: env(await sign()) });
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({
      tokenSource: "PACKYARD_ID_TOKEN",
      token: expect.stringMatching(/^pkp_/),
    });
  });

  it("refuses a job the project does not trust, with the server's code; PACKYARD_TOKEN wins over an ID token", async () => {
    const untrusted = await ci.sign({ ...gitlabClaims("carol-group/widget", "feature"), aud: server.url });
    const refused = await runCli(["push", "carol/widget", "2.2.0", file], {
      env: { ...cliHome(), PACKYARD_SERVER: server.url, PACKYARD_ID_TOKEN: untrusted },
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/OIDC_NO_TRUSTED_PUBLISHER|not this token's ref/);
    expect(await files("2.2.0")).toEqual([]);
    const withKey = await runCli(["push", "carol/widget", "2.2.0", file], {
      env: {
        ...cliHome(),
        PACKYARD_SERVER: server.url,
        PACKYARD_ID_TOKEN: untrusted,
        PACKYARD_TOKEN: carol.token,
      },
    });
    expect(withKey.code, withKey.stderr).toBe(0);
    expect(withKey.stderr).not.toMatch(/trusted publishing/);
  });
});
