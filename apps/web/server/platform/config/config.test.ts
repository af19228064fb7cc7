import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeTempDir, removeTempDirs } from "../../../test/temp-dirs.ts";
import { ConfigError, loadConfig } from "./config.ts";

const dataDir = () => makeTempDir("packyard-config-");

function errorFor(env: Record<string, string>): ConfigError {
  try {
    loadConfig({ DATA_DIR: dataDir(), ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("uses the embedded defaults", () => {
    const dir = dataDir();
    const config = loadConfig({ DATA_DIR: dir });
    expect(config.host).toBe("127.0.0.1");
    expect(config.port).toBe(3000);
    expect(config.baseUrl).toBe("http://localhost:3000");
    expect(config.database).toEqual({ kind: "sqlite", path: join(dir, "packyard.sqlite") });
    expect(config.outboxDir).toBe(join(dir, "outbox"));
    expect(config.smtpUrl).toBeUndefined();
  });

  it("listens on the loopback interface unless HOST names another", () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).host).toBe("127.0.0.1");
    expect(loadConfig({ DATA_DIR: dataDir(), HOST: "0.0.0.0" }).host).toBe("0.0.0.0");
    expect(loadConfig({ DATA_DIR: dataDir(), HOST: "::" }).host).toBe("::");
  });

  it("derives BASE_URL from PORT and strips a trailing slash from an explicit one", () => {
    expect(loadConfig({ DATA_DIR: dataDir(), PORT: "8080" }).baseUrl).toBe("http://localhost:8080");
    expect(loadConfig({ DATA_DIR: dataDir(), BASE_URL: "https://pkg.example.com/" }).baseUrl).toBe(
      "https://pkg.example.com",
    );
  });

  it("switches to PostgreSQL with DATABASE_URL", () => {
    const config = loadConfig({
      DATA_DIR: dataDir(),
      DATABASE_URL: "postgres://u:p@127.0.0.1:5432/packyard",
      SECRET: "a-secret-shared-by-every-server-0123456789",
    });
    expect(config.database).toEqual({ kind: "postgres", url: "postgres://u:p@127.0.0.1:5432/packyard" });
    expect(config.secretSource).toBe("env");
  });

  it("refuses DATABASE_URL without SECRET, naming SECRET, and writes no secret file", () => {
    const dir = dataDir();
    const error = errorFor({ DATA_DIR: dir, DATABASE_URL: "postgres://u:p@127.0.0.1:5432/packyard" });
    expect(error.issues.map((i) => i.variable)).toEqual(["SECRET"]);
    expect(error.message).toContain("SECRET: must be set with DATABASE_URL");
    expect(existsSync(join(dir, "secret"))).toBe(false);
  });

  it.each([
    ["PORT", "not-a-port"],
    ["PORT", "70000"],
    ["BASE_URL", "not a url"],
    ["BASE_URL", "ftp://example.com"],
    ["DATABASE_URL", "mysql://localhost/db"],
    ["SMTP_URL", "http://mail.example.com"],
    ["SECRET", "too-short"],
    ["NODE_ENV", "staging"],
    ["LOG_LEVEL", "loud"],
    ["AUTH_RATE_LIMIT", "maybe"],
    ["PASSWORD_MIN_LENGTH", "3"],
  ])("names %s when it is %j", (variable, value) => {
    const error = errorFor({ [variable]: value });
    expect(error.issues.map((i) => i.variable)).toEqual([variable]);
    expect(error.message).toContain(`${variable}:`);
  });

  it("rejects a minimum password length above the maximum", () => {
    const error = errorFor({ PASSWORD_MIN_LENGTH: "64", PASSWORD_MAX_LENGTH: "32" });
    expect(error.issues[0]?.variable).toBe("PASSWORD_MIN_LENGTH");
  });

  it("treats empty values as unset", () => {
    expect(loadConfig({ DATA_DIR: dataDir(), PORT: "", SMTP_URL: "" }).port).toBe(3000);
  });

  it("generates a secret on first start, keeps it private, and reuses it", () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir });
    expect(first.secretSource).toBe("file");
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(join(dir, "secret"), "utf8").trim()).toBe(first.secret);
    expect(statSync(join(dir, "secret")).mode & 0o777).toBe(0o600);
    expect(loadConfig({ DATA_DIR: dir }).secret).toBe(first.secret);
  });

  it("prefers SECRET from the environment", () => {
    const secret = "s".repeat(40);
    const config = loadConfig({ DATA_DIR: dataDir(), SECRET: secret });
    expect(config).toMatchObject({ secret, secretSource: "env" });
  });

  it("sends contact messages to CONTACT_EMAIL, by default to MAIL_FROM's address", () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).contactEmail).toBe("no-reply@packyard.localhost");
    expect(loadConfig({ DATA_DIR: dataDir(), MAIL_FROM: "Support <help@pkg.example>" }).contactEmail).toBe(
      "help@pkg.example",
    );
    expect(loadConfig({ DATA_DIR: dataDir(), MAIL_FROM: "robot@pkg.example" }).contactEmail).toBe(
      "robot@pkg.example",
    );
    expect(loadConfig({ DATA_DIR: dataDir(), CONTACT_EMAIL: "sales@pkg.example" }).contactEmail).toBe(
      "sales@pkg.example",
    );
    expect(errorFor({ CONTACT_EMAIL: "not an address" }).issues.map((i) => i.variable)).toEqual([
      "CONTACT_EMAIL",
    ]);
  });

  it("reads the site script ids and the Sentry DSN, all unset by default", () => {
    expect(loadConfig({ DATA_DIR: dataDir() })).toMatchObject({ siteScripts: {}, sentryDsn: undefined });
    const config = loadConfig({
      DATA_DIR: dataDir(),
      ANALYTICS_ID: "packyard.example",
      ADS_CLIENT_ID: "ca-pub-1234567890123456",
      CHAT_ID: "4f1e2d3c-1a2b-4c3d-8e9f-0123456789ab",
      HEATMAP_ID: "k2x9q7w1ab",
      SENTRY_DSN: "https://abc123@o1.ingest.sentry.io/42",
    });
    expect(config.siteScripts).toEqual({
      analyticsId: "packyard.example",
      adsClientId: "ca-pub-1234567890123456",
      chatId: "4f1e2d3c-1a2b-4c3d-8e9f-0123456789ab",
      heatmapId: "k2x9q7w1ab",
    });
    expect(config.sentryDsn).toBe("https://abc123@o1.ingest.sentry.io/42");
  });

  it.each([
    ["ANALYTICS_ID", "not a domain"],
    ["ANALYTICS_ID", '"><script>'],
    ["ADS_CLIENT_ID", "pub-123"],
    ["CHAT_ID", "not-a-uuid"],
    ["HEATMAP_ID", "x');alert(1)//"],
    ["SENTRY_DSN", "not a url"],
    ["SENTRY_DSN", "https://o1.ingest.sentry.io/42"],
    ["SENTRY_DSN", "https://key@o1.ingest.sentry.io/"],
  ])("names %s when it is %j", (variable, value) => {
    expect(errorFor({ [variable]: value }).issues.map((i) => i.variable)).toEqual([variable]);
  });

  it("reads blog posts from the repository unless SANITY_PROJECT_ID and SANITY_DATASET are set", () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).blogContent).toEqual({ kind: "embedded" });
    expect(
      loadConfig({ DATA_DIR: dataDir(), SANITY_PROJECT_ID: "abc123", SANITY_DATASET: "production" })
        .blogContent,
    ).toEqual({ kind: "sanity", projectId: "abc123", dataset: "production", apiVersion: "2025-02-19" });
    expect(
      loadConfig({
        DATA_DIR: dataDir(),
        SANITY_PROJECT_ID: "abc123",
        SANITY_DATASET: "blog_staging",
        SANITY_API_VERSION: "2026-01-01",
        SANITY_TOKEN: "sk-read-token",
        SANITY_API_HOST: "http://127.0.0.1:9999/",
      }).blogContent,
    ).toEqual({
      kind: "sanity",
      projectId: "abc123",
      dataset: "blog_staging",
      apiVersion: "2026-01-01",
      token: "sk-read-token",
      apiHost: "http://127.0.0.1:9999",
    });
  });

  it("names the content service variable that is missing or malformed", () => {
    expect(errorFor({ SANITY_PROJECT_ID: "abc123" }).issues).toEqual([
      { variable: "SANITY_DATASET", message: "must be set with SANITY_PROJECT_ID" },
    ]);
    expect(errorFor({ SANITY_DATASET: "production" }).issues.map((i) => i.variable)).toEqual([
      "SANITY_PROJECT_ID",
    ]);
    const malformed: [string, string][] = [
      ["SANITY_PROJECT_ID", "Not An Id"],
      ["SANITY_DATASET", "prod/uction"],
      ["SANITY_API_VERSION", "v1"],
      ["SANITY_API_HOST", "ftp://cms.example"],
    ];
    for (const [variable, value] of malformed) {
      const env = { SANITY_PROJECT_ID: "abc123", SANITY_DATASET: "production", [variable]: value };
      expect(errorFor(env).issues.map((i) => i.variable)).toEqual([variable]);
    }
  });

  it("enables each social provider whose client id and secret are both set, in better-auth's order", () => {
    const config = loadConfig({
      DATA_DIR: dataDir(),
      AUTH_GITLAB_CLIENT_ID: "gl-id",
      AUTH_GITLAB_CLIENT_SECRET: "gl-secret",
      AUTH_GITHUB_CLIENT_ID: "gh-id",
      AUTH_GITHUB_CLIENT_SECRET: "gh-secret",
      AUTH_MICROSOFT_CLIENT_ID: "ms-id",
      AUTH_MICROSOFT_CLIENT_SECRET: "ms-secret",
      AUTH_MICROSOFT_TENANT_ID: "organizations",
    });
    expect(config.socialProviders).toEqual([
      { id: "github", clientId: "gh-id", clientSecret: "gh-secret", extra: {} },
      { id: "microsoft", clientId: "ms-id", clientSecret: "ms-secret", extra: { tenantId: "organizations" } },
      { id: "gitlab", clientId: "gl-id", clientSecret: "gl-secret", extra: {} },
    ]);
    expect(config.oidc).toBeUndefined();
    expect(loadConfig({ DATA_DIR: dataDir() }).socialProviders).toEqual([]);
  });

  it("stops start-up naming the missing half of a social provider's pair", () => {
    expect(errorFor({ AUTH_GITHUB_CLIENT_ID: "gh-id" }).issues).toEqual([
      { variable: "AUTH_GITHUB_CLIENT_SECRET", message: "must be set with AUTH_GITHUB_CLIENT_ID" },
    ]);
    expect(errorFor({ AUTH_GOOGLE_CLIENT_SECRET: "g-secret" }).issues).toEqual([
      { variable: "AUTH_GOOGLE_CLIENT_ID", message: "must be set with AUTH_GOOGLE_CLIENT_SECRET" },
    ]);
    // An empty value counts as unset.
    expect(errorFor({ AUTH_GITLAB_CLIENT_ID: "gl-id", AUTH_GITLAB_CLIENT_SECRET: "" }).issues).toEqual([
      { variable: "AUTH_GITLAB_CLIENT_SECRET", message: "must be set with AUTH_GITLAB_CLIENT_ID" },
    ]);
  });

  it("needs Cognito's domain, region and user pool with its client id and secret", () => {
    const pair = { AUTH_COGNITO_CLIENT_ID: "c-id", AUTH_COGNITO_CLIENT_SECRET: "c-secret" };
    expect(
      errorFor({ ...pair, AUTH_COGNITO_DOMAIN: "auth.example.com" }).issues.map((i) => i.variable),
    ).toEqual(["AUTH_COGNITO_REGION", "AUTH_COGNITO_USER_POOL_ID"]);
    const config = loadConfig({
      DATA_DIR: dataDir(),
      ...pair,
      AUTH_COGNITO_DOMAIN: "auth.example.com",
      AUTH_COGNITO_REGION: "eu-west-1",
      AUTH_COGNITO_USER_POOL_ID: "eu-west-1_abc",
    });
    expect(config.socialProviders[0]?.extra).toEqual({
      domain: "auth.example.com",
      region: "eu-west-1",
      userPoolId: "eu-west-1_abc",
    });
  });

  it("reads the OpenID Connect provider from AUTH_OIDC_*, labelled 'Single sign-on' by default", () => {
    const env = {
      DATA_DIR: dataDir(),
      AUTH_OIDC_ISSUER: "https://id.example.com/realms/main/",
      AUTH_OIDC_CLIENT_ID: "packyard",
      AUTH_OIDC_CLIENT_SECRET: "s3cret",
    };
    expect(loadConfig(env).oidc).toEqual({
      issuer: "https://id.example.com/realms/main",
      clientId: "packyard",
      clientSecret: "s3cret",
      name: "Single sign-on",
    });
    expect(loadConfig({ ...env, AUTH_OIDC_NAME: "Acme SSO" }).oidc?.name).toBe("Acme SSO");
  });

  it("stops start-up naming each missing AUTH_OIDC_* variable, and a malformed issuer", () => {
    expect(errorFor({ AUTH_OIDC_ISSUER: "https://id.example.com" }).issues).toEqual([
      { variable: "AUTH_OIDC_CLIENT_ID", message: "must be set with AUTH_OIDC_ISSUER" },
      { variable: "AUTH_OIDC_CLIENT_SECRET", message: "must be set with AUTH_OIDC_ISSUER" },
    ]);
    expect(
      errorFor({ AUTH_OIDC_ISSUER: "https://id.example.com", AUTH_OIDC_CLIENT_ID: "packyard" }).issues,
    ).toEqual([
      {
        variable: "AUTH_OIDC_CLIENT_SECRET",
        message: "must be set with AUTH_OIDC_ISSUER and AUTH_OIDC_CLIENT_ID",
      },
    ]);
    expect(
      errorFor({ AUTH_OIDC_CLIENT_ID: "packyard", AUTH_OIDC_CLIENT_SECRET: "s3cret" }).issues.map(
        (i) => i.variable,
      ),
    ).toEqual(["AUTH_OIDC_ISSUER"]);
    expect(
      errorFor({
        AUTH_OIDC_ISSUER: "ftp://id.example.com",
        AUTH_OIDC_CLIENT_ID: "packyard",
        AUTH_OIDC_CLIENT_SECRET: "s3cret",
      }).issues.map((i) => i.variable),
    ).toEqual(["AUTH_OIDC_ISSUER"]);
  });

  it("stops start-up on a malformed DELETE_ACCOUNT_TOKEN_EXPIRES_IN, 24 hours by default", () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).deleteAccountTokenSeconds).toBe(86_400);
    expect(
      loadConfig({ DATA_DIR: dataDir(), DELETE_ACCOUNT_TOKEN_EXPIRES_IN: "3600" }).deleteAccountTokenSeconds,
    ).toBe(3600);
    for (const value of ["soon", "60", "99999999"]) {
      expect(errorFor({ DELETE_ACCOUNT_TOKEN_EXPIRES_IN: value }).issues.map((i) => i.variable)).toEqual([
        "DELETE_ACCOUNT_TOKEN_EXPIRES_IN",
      ]);
    }
  });
});

afterAll(removeTempDirs);
