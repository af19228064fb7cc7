// The one validated configuration schema. Every environment variable Packyard reads is
// declared here, parsed once at boot; a bad value stops start-up naming the variable.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { socialProviderIds } from "../../auth/social-provider-ids.ts";
import type { S3Settings } from "../storage/s3-blob-store.ts";

const boolean = z.enum(["true", "false", "1", "0"]).transform((value) => value === "true" || value === "1");

const port = z.coerce.number().int().min(0).max(65535);

export const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  // Loopback by default: `npm start` on a laptop is not reachable from its network. A container,
  // or a server behind a load balancer on another machine, sets HOST=0.0.0.0 (decision 066).
  HOST: z.string().min(1).default("127.0.0.1"),
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
  // Account deletion (spec §9): how long the mailed confirmation link works, in seconds.
  DELETE_ACCOUNT_TOKEN_EXPIRES_IN: z.coerce
    .number()
    .int()
    .min(300)
    .max(30 * 24 * 60 * 60)
    .default(24 * 60 * 60),
  // A generic OpenID Connect provider for self-hosters (Keycloak, Authentik, Okta, …): the
  // issuer's discovery document gives every endpoint; provider id "oidc".
  AUTH_OIDC_ISSUER: z
    .url({ protocol: /^https?$/ })
    .transform((url) => url.replace(/\/+$/, ""))
    .optional(),
  AUTH_OIDC_CLIENT_ID: z.string().min(1).optional(),
  AUTH_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  AUTH_OIDC_NAME: z.string().min(1).max(40).default("Single sign-on"),
  // Extra settings two social providers need besides their client id and secret.
  AUTH_MICROSOFT_TENANT_ID: z.string().min(1).optional(),
  AUTH_COGNITO_DOMAIN: z.string().min(1).optional(),
  AUTH_COGNITO_REGION: z.string().min(1).optional(),
  AUTH_COGNITO_USER_POOL_ID: z.string().min(1).optional(),
  APT_GRACE_SECONDS: z.coerce.number().int().min(0).default(3600),
  INDEX_CACHE_MB: z.coerce.number().int().min(0).default(256),
  MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(2 * 1024 ** 3),
  TRUST_PROXY: boolean.default(false),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  // /metrics: with a token, only `Authorization: Bearer <token>`; without, loopback only.
  METRICS_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{16,}$/, "must be at least 16 printable characters without spaces")
    .optional(),
  // Optional site scripts (server/site/site-scripts.ts), loaded only in production. The formats
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
  // Plans (DESIGN.md "Plans"): "off" lifts every limit, for a private installation.
  PLAN_LIMITS: z.enum(["on", "off"]).default("on"),
  // Where the GitHub Releases importer reads (server/imports): GitHub's API, or a GitHub
  // Enterprise Server's (https://github.example.com/api/v3).
  GITHUB_API_URL: z
    .url({ protocol: /^https?$/ })
    .transform((url) => url.replace(/\/+$/, ""))
    .default("https://api.github.com"),
  // Payments through Stripe (server/billing): all six or none. Without them the operator sets
  // plans from the command line (users set-plan). STRIPE_API_BASE is for tests only: another
  // API origin (a local fake), used as is.
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_[A-Za-z0-9_]+$/, "must be a Stripe secret key (sk_… or rk_…)")
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9_]+$/, "must be a webhook signing secret (whsec_…)")
    .optional(),
  STRIPE_PRICE_STARTER_MONTHLY: stripePrice().optional(),
  STRIPE_PRICE_STARTER_ANNUAL: stripePrice().optional(),
  STRIPE_PRICE_PRO_MONTHLY: stripePrice().optional(),
  STRIPE_PRICE_PRO_ANNUAL: stripePrice().optional(),
  STRIPE_API_BASE: z
    .url({ protocol: /^https?$/ })
    .transform((url) => url.replace(/\/+$/, ""))
    .optional(),
  // Blobs and published indexes on S3-compatible object storage (platform/storage/s3-blob-store.ts)
  // instead of DATA_DIR: S3_BUCKET is required when any S3_* is set.
  S3_BUCKET: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
      "must be a bucket name (3-63 lowercase letters, digits, . and -)",
    )
    .optional(),
  S3_ENDPOINT: z
    .url({ protocol: /^https?$/ })
    .transform((url) => url.replace(/\/+$/, ""))
    .optional(),
  S3_REGION: z
    .string()
    .regex(/^[a-z0-9-]+$/, "must be a region name (us-east-1)")
    .optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: boolean.optional(),
  S3_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9!_.*'()/-]+$/, "must be a key prefix (letters, digits, / and !_.*'()-)")
    .transform((p) => p.replace(/^\/+/, "").replace(/\/*$/, "/"))
    .optional(),
  // Release file downloads answered with a redirect to a presigned GetObject URL of the bucket
  // instead of streamed through the server (formats/files/serve.ts), valid this many seconds.
  S3_PRESIGNED_DOWNLOADS: boolean.optional(),
  S3_PRESIGNED_EXPIRES_SECONDS: z.coerce.number().int().min(10).max(3600).optional(),
  // Webhooks (server/webhooks) and importers (server/imports): true lets them reach loopback,
  // link-local and private addresses, for tests and private installations; otherwise such URLs
  // are refused (no SSRF; decision 055).
  WEBHOOK_ALLOW_PRIVATE: boolean.default(false),
  // How long a webhook's receiver has to answer, and the attempts one server makes at once (a
  // quarter of them at most for one project's webhooks; decision 059).
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().positive().max(60).default(10),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(16),
  // The DNS server an organization's domain verification asks (host:port; docs/sso.md): for tests
  // and split-horizon installations. Unset: the system's resolvers.
  DNS_RESOLVER: z
    .string()
    .trim()
    .regex(
      /^(?:\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/,
      "DNS_RESOLVER must be host:port (an IPv6 address in brackets)",
    )
    .optional(),
});

function stripePrice() {
  return z.string().regex(/^price_[A-Za-z0-9_]+$/, "must be a Stripe price id (price_…)");
}

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
  /** Lifetime of the mailed account-deletion link (DELETE_ACCOUNT_TOKEN_EXPIRES_IN, seconds). */
  deleteAccountTokenSeconds: number;
  /** Social providers with both AUTH_<PROVIDER>_CLIENT_ID and _CLIENT_SECRET set, in list order. */
  socialProviders: SocialProviderConfig[];
  /** The generic OpenID Connect provider (AUTH_OIDC_*), when configured. */
  oidc: OidcConfig | undefined;
  maxUploadBytes: number;
  aptGraceSeconds: number;
  /** What repository builders may keep in memory between publishes (package sets, blocks). */
  indexCacheBytes: number;
  trustProxy: boolean;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** METRICS_TOKEN: the Bearer token /metrics requires; unset, it answers loopback clients only. */
  metricsToken: string | undefined;
  /** Ids of the optional site scripts; which of them load is decided in server/site/site-scripts.ts. */
  siteScripts: { analyticsId?: string; adsClientId?: string; chatId?: string; heatmapId?: string };
  /** Error reporting (Sentry) for the server and the browser; off when unset. */
  sentryDsn: string | undefined;
  /** Where the blog's posts come from: the repository's content/blog, or the content service. */
  blogContent: BlogContentConfig;
  /** GITHUB_API_URL: the API the GitHub Releases importer reads. */
  githubApiUrl: string;
  /** PLAN_LIMITS: false lifts every plan limit (read it through limitsEnabled). */
  planLimits: boolean;
  /** Payments through Stripe (STRIPE_*), when configured. */
  stripe: StripeConfig | undefined;
  /** S3-compatible object storage for blobs and indexes (S3_*), when configured. */
  s3: S3Settings | undefined;
  /** WEBHOOK_ALLOW_PRIVATE: webhooks and importers may reach loopback, link-local and private addresses. */
  webhookAllowPrivate: boolean;
  /** DNS_RESOLVER: the DNS server domain verification asks (host:port); undefined: the system's. */
  dnsResolver: string | undefined;
  /** WEBHOOK_TIMEOUT_SECONDS and WEBHOOK_CONCURRENCY (decision 059). */
  webhookTimeoutMs: number;
  webhookConcurrency: number;
}

export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** The Stripe price of each paid plan and period. */
  prices: { starter: { monthly: string; annual: string }; pro: { monthly: string; annual: string } };
  /** Another API origin (STRIPE_API_BASE, tests only), as the SDK's host, port and protocol. */
  api?: { host: string; port: number; protocol: "http" | "https" };
}

export interface SocialProviderConfig {
  /** better-auth's provider id, e.g. "github"; the callback is /api/auth/callback/{id}. */
  id: string;
  clientId: string;
  clientSecret: string;
  /** Provider-specific settings (Microsoft's tenant, Cognito's pool). */
  extra: Record<string, string>;
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The sign-in button's label. */
  name: string;
}

/** The environment variable of a social provider's setting: AUTH_GITHUB_CLIENT_ID. */
export function providerVariable(providerId: string, setting: "CLIENT_ID" | "CLIENT_SECRET"): string {
  return `AUTH_${providerId.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_${setting}`;
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
  // Several servers share one PostgreSQL database: each generating its own secret would make
  // their sessions, tokens and encrypted keys unreadable to the others.
  if (e.DATABASE_URL && !e.SECRET) {
    throw new ConfigError([
      {
        variable: "SECRET",
        message:
          "must be set with DATABASE_URL (the same value on every server; e.g. openssl rand -base64 32)",
      },
    ]);
  }
  const stripe = readStripe(e);
  const socialProviders = readSocialProviders(cleaned, e);
  const oidc = readOidc(e);
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
    deleteAccountTokenSeconds: e.DELETE_ACCOUNT_TOKEN_EXPIRES_IN,
    socialProviders,
    oidc,
    maxUploadBytes: e.MAX_UPLOAD_BYTES,
    aptGraceSeconds: e.APT_GRACE_SECONDS,
    indexCacheBytes: e.INDEX_CACHE_MB * 1024 * 1024,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
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
    githubApiUrl: e.GITHUB_API_URL,
    planLimits: e.PLAN_LIMITS === "on",
    stripe,
    s3: readS3(e),
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    dnsResolver: e.DNS_RESOLVER,
    webhookTimeoutMs: Math.round(e.WEBHOOK_TIMEOUT_SECONDS * 1000),
    webhookConcurrency: e.WEBHOOK_CONCURRENCY,
  };
}

/** S3_*: none, or S3_BUCKET with the others; the access key id and secret go together. */
function readS3(e: ParsedEnv): S3Settings | undefined {
  const presigned = ["S3_PRESIGNED_DOWNLOADS", "S3_PRESIGNED_EXPIRES_SECONDS"];
  const given = Object.keys(e).filter(
    (k) => k.startsWith("S3_") && !presigned.includes(k) && e[k as keyof ParsedEnv] !== undefined,
  );
  // Presigned downloads are URLs of the bucket: without one they cannot be (false alone is fine).
  if (given.length === 0) {
    const issues = [];
    if (e.S3_PRESIGNED_DOWNLOADS)
      issues.push({
        variable: "S3_PRESIGNED_DOWNLOADS",
        message: "needs S3 storage: set S3_BUCKET (and the other S3_* your service needs), or remove it",
      });
    if (e.S3_PRESIGNED_EXPIRES_SECONDS !== undefined)
      issues.push({
        variable: "S3_PRESIGNED_EXPIRES_SECONDS",
        message: "needs S3_BUCKET and S3_PRESIGNED_DOWNLOADS",
      });
    if (issues.length) throw new ConfigError(issues);
    return undefined;
  }
  const issues: { variable: string; message: string }[] = [];
  if (!e.S3_BUCKET) issues.push({ variable: "S3_BUCKET", message: `must be set with ${given.join(", ")}` });
  if (e.S3_ACCESS_KEY_ID && !e.S3_SECRET_ACCESS_KEY)
    issues.push({ variable: "S3_SECRET_ACCESS_KEY", message: "must be set with S3_ACCESS_KEY_ID" });
  if (e.S3_SECRET_ACCESS_KEY && !e.S3_ACCESS_KEY_ID)
    issues.push({ variable: "S3_ACCESS_KEY_ID", message: "must be set with S3_SECRET_ACCESS_KEY" });
  // A staged upload is copied into place with one CopyObject, which S3 allows up to 5 GiB.
  if (e.MAX_UPLOAD_BYTES > 5 * 1024 ** 3)
    issues.push({
      variable: "MAX_UPLOAD_BYTES",
      message: "must be at most 5 GiB (5368709120) with S3_BUCKET",
    });
  if (issues.length) throw new ConfigError(issues);
  return {
    bucket: e.S3_BUCKET!,
    endpoint: e.S3_ENDPOINT,
    region: e.S3_REGION ?? "us-east-1",
    credentials:
      e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY }
        : undefined,
    forcePathStyle: e.S3_FORCE_PATH_STYLE ?? false,
    prefix: e.S3_PREFIX ?? "",
    ...(e.S3_PRESIGNED_DOWNLOADS
      ? { presignedDownloads: { expiresSeconds: e.S3_PRESIGNED_EXPIRES_SECONDS ?? 300 } }
      : {}),
  };
}

/** STRIPE_*: all six variables or none; each missing one is named. */
function readStripe(e: ParsedEnv): StripeConfig | undefined {
  const parts = {
    STRIPE_SECRET_KEY: e.STRIPE_SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: e.STRIPE_WEBHOOK_SECRET,
    STRIPE_PRICE_STARTER_MONTHLY: e.STRIPE_PRICE_STARTER_MONTHLY,
    STRIPE_PRICE_STARTER_ANNUAL: e.STRIPE_PRICE_STARTER_ANNUAL,
    STRIPE_PRICE_PRO_MONTHLY: e.STRIPE_PRICE_PRO_MONTHLY,
    STRIPE_PRICE_PRO_ANNUAL: e.STRIPE_PRICE_PRO_ANNUAL,
  };
  const set = Object.entries(parts).filter(([, value]) => value);
  if (set.length === 0) {
    if (e.STRIPE_API_BASE) {
      throw new ConfigError([{ variable: "STRIPE_SECRET_KEY", message: "must be set with STRIPE_API_BASE" }]);
    }
    return undefined;
  }
  if (set.length < Object.keys(parts).length) {
    throw new ConfigError(
      Object.entries(parts)
        .filter(([, value]) => !value)
        .map(([variable]) => ({
          variable,
          message: `must be set with ${set.map(([name]) => name).join(", ")}`,
        })),
    );
  }
  const base = e.STRIPE_API_BASE ? new URL(e.STRIPE_API_BASE) : undefined;
  const protocol = base?.protocol === "http:" ? "http" : "https";
  return {
    secretKey: e.STRIPE_SECRET_KEY!,
    webhookSecret: e.STRIPE_WEBHOOK_SECRET!,
    prices: {
      starter: { monthly: e.STRIPE_PRICE_STARTER_MONTHLY!, annual: e.STRIPE_PRICE_STARTER_ANNUAL! },
      pro: { monthly: e.STRIPE_PRICE_PRO_MONTHLY!, annual: e.STRIPE_PRICE_PRO_ANNUAL! },
    },
    ...(base
      ? {
          api: {
            host: base.hostname,
            port: base.port ? Number(base.port) : protocol === "http" ? 80 : 443,
            protocol,
          },
        }
      : {}),
  };
}

type ParsedEnv = z.output<typeof envSchema>;

/** Every social provider better-auth knows whose client id and secret are both set. */
function readSocialProviders(env: Record<string, string | undefined>, e: ParsedEnv): SocialProviderConfig[] {
  const providers: SocialProviderConfig[] = [];
  const issues: { variable: string; message: string }[] = [];
  for (const id of socialProviderIds) {
    const idVariable = providerVariable(id, "CLIENT_ID");
    const secretVariable = providerVariable(id, "CLIENT_SECRET");
    const clientId = env[idVariable];
    const clientSecret = env[secretVariable];
    if (!clientId && !clientSecret) continue;
    if (!clientId || !clientSecret) {
      const missing = clientId ? secretVariable : idVariable;
      issues.push({
        variable: missing,
        message: `must be set with ${clientId ? idVariable : secretVariable}`,
      });
      continue;
    }
    const extra: Record<string, string> = {};
    if (id === "microsoft" && e.AUTH_MICROSOFT_TENANT_ID) extra.tenantId = e.AUTH_MICROSOFT_TENANT_ID;
    if (id === "cognito") {
      const needed = {
        domain: ["AUTH_COGNITO_DOMAIN", e.AUTH_COGNITO_DOMAIN],
        region: ["AUTH_COGNITO_REGION", e.AUTH_COGNITO_REGION],
        userPoolId: ["AUTH_COGNITO_USER_POOL_ID", e.AUTH_COGNITO_USER_POOL_ID],
      } as const;
      for (const [key, [variable, value]] of Object.entries(needed)) {
        if (value) extra[key] = value;
        else issues.push({ variable, message: `must be set with ${idVariable}` });
      }
    }
    providers.push({ id, clientId, clientSecret, extra });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return providers;
}

function readOidc(e: ParsedEnv): OidcConfig | undefined {
  const parts = {
    AUTH_OIDC_ISSUER: e.AUTH_OIDC_ISSUER,
    AUTH_OIDC_CLIENT_ID: e.AUTH_OIDC_CLIENT_ID,
    AUTH_OIDC_CLIENT_SECRET: e.AUTH_OIDC_CLIENT_SECRET,
  };
  const set = Object.entries(parts).filter(([, value]) => value);
  if (set.length === 0) return undefined;
  if (set.length < 3) {
    throw new ConfigError(
      Object.entries(parts)
        .filter(([, value]) => !value)
        .map(([variable]) => ({
          variable,
          message: `must be set with ${set.map(([name]) => name).join(" and ")}`,
        })),
    );
  }
  return {
    issuer: e.AUTH_OIDC_ISSUER!,
    clientId: e.AUTH_OIDC_CLIENT_ID!,
    clientSecret: e.AUTH_OIDC_CLIENT_SECRET!,
    name: e.AUTH_OIDC_NAME,
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
