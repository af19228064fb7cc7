// The one validated configuration schema. Every environment variable Packyard reads is
// declared here, parsed once at boot; a bad value stops start-up naming the variable.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";

const boolean = z.enum(["true", "false", "1", "0"]).transform((value) => value === "true" || value === "1");

const port = z.coerce.number().int().min(0).max(65535);

export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  HOST: z.string().min(1).default("0.0.0.0"),
  PORT: port.default(3000),
  DATA_DIR: z.string().min(1).default("./data"),
  BASE_URL: z
    .url({ protocol: /^https?$/ })
    .transform((url) => url.replace(/\/+$/, ""))
    .optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL")
    .optional(),
  MAIL_FROM: z.string().min(3).default("Packyard <no-reply@packyard.localhost>"),
  CONTACT_EMAIL: z.email("must be an email address").optional(),
  PASSWORD_MIN_LENGTH: z.coerce.number().int().min(8).max(128).default(10),
  PASSWORD_MAX_LENGTH: z.coerce.number().int().min(16).max(1024).default(128),
  AUTH_RATE_LIMIT: boolean.default(true),
  APT_GRACE_SECONDS: z.coerce.number().int().min(0).default(3600),
  INDEX_CACHE_MB: z.coerce.number().int().min(0).default(256),
  MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(2 * 1024 ** 3),
  TRUST_PROXY: boolean.default(false),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  // Optional site scripts (server/http/site-scripts.ts), loaded only in production. The formats
  // are checked strictly: the ids end up inside script tags.
  ANALYTICS_ID: z
    .string()
    .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i, "must be the site's domain as registered with Plausible")
    .optional(),
  ADS_CLIENT_ID: z
    .string()
    .regex(/^ca-pub-\d{10,20}$/, "must be an AdSense publisher id (ca-pub-…)")
    .optional(),
  CHAT_ID: z
    .string()
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, "must be a Crisp website id")
    .optional(),
  HEATMAP_ID: z
    .string()
    .regex(/^[a-z0-9]{6,32}$/i, "must be a Microsoft Clarity project id")
    .optional(),
  SENTRY_DSN: z
    .string()
    .refine(isSentryDsn, "must be a Sentry DSN: https://<key>@<host>/<project id>")
    .optional(),
  // The blog's content service (spec §7): with both set, posts come from it instead of the posts
  // shipped in content/blog. SANITY_API_HOST is for tests and self-hosted proxies only.
  SANITY_PROJECT_ID: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, "must be a project id (lowercase letters, digits and hyphens)")
    .optional(),
  SANITY_DATASET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "must be a dataset name (lowercase letters, digits, _ and -)")
    .optional(),
  SANITY_API_VERSION: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date, YYYY-MM-DD")
    .default("2025-02-19"),
  SANITY_TOKEN: z.string().min(1).optional(),
  SANITY_API_HOST: z
    .url({ protocol: /^https?$/ })
    .transform((url) => url.replace(/\/+$/, ""))
    .optional(),
});

function isSentryDsn(value: string): boolean {
  const url = URL.parse(value);
  return (
    url !== null &&
    /^https?:$/.test(url.protocol) &&
    url.username !== "" &&
    /^\/(?:.*\/)?\d+$/.test(url.pathname)
  );
}

export type Env = z.input<typeof envSchema>;

export interface Config {
  nodeEnv: "development" | "production" | "test";
  host: string;
  port: number;
  dataDir: string;
  baseUrl: string;
  database: { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };
  secret: string;
  secretSource: "env" | "file";
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Where the contact form's messages go (CONTACT_EMAIL; default: MAIL_FROM's address). */
  contactEmail: string;
  outboxDir: string;
  blobDir: string;
  passwordMinLength: number;
  passwordMaxLength: number;
  authRateLimit: boolean;
  maxUploadBytes: number;
  aptGraceSeconds: number;
  /** What repository builders may keep in memory between publishes (package sets, blocks). */
  indexCacheBytes: number;
  trustProxy: boolean;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** Ids of the optional site scripts; which of them load is decided in server/http/site-scripts.ts. */
  siteScripts: { analyticsId?: string; adsClientId?: string; chatId?: string; heatmapId?: string };
  /** Error reporting (Sentry) for the server and the browser; off when unset. */
  sentryDsn: string | undefined;
  /** Where the blog's posts come from: the repository's content/blog, or the content service. */
  blogContent: BlogContentConfig;
}

export type BlogContentConfig =
  | { kind: "embedded" }
  | {
      kind: "sanity";
      projectId: string;
      dataset: string;
      apiVersion: string;
      token?: string;
      apiHost?: string;
    };

export class ConfigError extends Error {
  readonly issues: { variable: string; message: string }[];
  constructor(issues: { variable: string; message: string }[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  ${i.variable}: ${i.message}`).join("\n")}`);
    this.name = "ConfigError";
    this.issues = issues;
  }
}

/** Parses the environment. Pure apart from the secret file, which it reads or creates. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings mean "unset", as in most .env tooling.
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? "(environment)"),
        message: issue.message,
      })),
    );
  }
  const e = parsed.data;
  if (e.PASSWORD_MIN_LENGTH > e.PASSWORD_MAX_LENGTH) {
    throw new ConfigError([
      { variable: "PASSWORD_MIN_LENGTH", message: "must not exceed PASSWORD_MAX_LENGTH" },
    ]);
  }
  if (Boolean(e.SANITY_PROJECT_ID) !== Boolean(e.SANITY_DATASET)) {
    const missing = e.SANITY_PROJECT_ID ? "SANITY_DATASET" : "SANITY_PROJECT_ID";
    const given = e.SANITY_PROJECT_ID ? "SANITY_PROJECT_ID" : "SANITY_DATASET";
    throw new ConfigError([{ variable: missing, message: `must be set with ${given}` }]);
  }
  const dataDir = resolve(e.DATA_DIR);
  mkdirSync(dataDir, { recursive: true });
  const { secret, source } = e.SECRET
    ? { secret: e.SECRET, source: "env" as const }
    : { secret: readOrCreateSecret(join(dataDir, "secret")), source: "file" as const };
  return {
    nodeEnv: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    dataDir,
    baseUrl: e.BASE_URL ?? `http://localhost:${e.PORT}`,
    database: e.DATABASE_URL
      ? { kind: "postgres", url: e.DATABASE_URL }
      : { kind: "sqlite", path: join(dataDir, "packyard.sqlite") },
    secret,
    secretSource: source,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    contactEmail: e.CONTACT_EMAIL ?? mailAddress(e.MAIL_FROM),
    outboxDir: join(dataDir, "outbox"),
    blobDir: join(dataDir, "blobs"),
    passwordMinLength: e.PASSWORD_MIN_LENGTH,
    passwordMaxLength: e.PASSWORD_MAX_LENGTH,
    authRateLimit: e.AUTH_RATE_LIMIT,
    maxUploadBytes: e.MAX_UPLOAD_BYTES,
    aptGraceSeconds: e.APT_GRACE_SECONDS,
    indexCacheBytes: e.INDEX_CACHE_MB * 1024 * 1024,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    siteScripts: {
      analyticsId: e.ANALYTICS_ID,
      adsClientId: e.ADS_CLIENT_ID,
      chatId: e.CHAT_ID,
      heatmapId: e.HEATMAP_ID,
    },
    sentryDsn: e.SENTRY_DSN,
    blogContent:
      e.SANITY_PROJECT_ID && e.SANITY_DATASET
        ? {
            kind: "sanity",
            projectId: e.SANITY_PROJECT_ID,
            dataset: e.SANITY_DATASET,
            apiVersion: e.SANITY_API_VERSION,
            ...(e.SANITY_TOKEN ? { token: e.SANITY_TOKEN } : {}),
            ...(e.SANITY_API_HOST ? { apiHost: e.SANITY_API_HOST } : {}),
          }
        : { kind: "embedded" },
  };
}

/** The address of a sender such as `Packyard <no-reply@example.com>`. */
function mailAddress(from: string): string {
  return from.match(/<([^<>]+)>\s*$/)?.[1]?.trim() ?? from.trim();
}

function readOrCreateSecret(path: string): string {
  if (existsSync(path)) {
    const value = readFileSync(path, "utf8").trim();
    if (value.length >= 32) return value;
  }
  const value = randomBytes(32).toString("base64url");
  // "wx" fails if another process created it meanwhile; then read theirs.
  try {
    writeFileSync(path, `${value}\n`, { mode: 0o600, flag: "wx" });
    return value;
  } catch {
    return readFileSync(path, "utf8").trim();
  }
}
