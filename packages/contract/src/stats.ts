// Download statistics (decisions 033 and 083): which kind of client fetched a file, told from
// its User-Agent — a package manager's fetch is an install, anything else's a download — and
// the shape of GET /api/v1/projects/{slug}/stats, its query and its answer. The server counts
// with classifyClient and isInstaller; the API and the dashboard parse with these schemas.
import { z } from "zod";

/** The kinds of client a download is counted under, in the order the dashboard lists them. */
export const CLIENT_KINDS = ["apt", "dnf", "zypper", "npm", "pip", "uv", "curl", "browser", "other"] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

/** What the dashboard calls each kind. */
export const clientKindLabels: Record<ClientKind, string> = {
  apt: "apt",
  dnf: "dnf/yum",
  zypper: "zypper",
  npm: "npm/yarn/pnpm",
  pip: "pip",
  uv: "uv",
  curl: "curl/wget",
  browser: "Browser",
  other: "Other",
};

/** The package managers: a file one of them fetches is an install; any other client's, a download. */
export const INSTALLER_KINDS = [
  "apt",
  "dnf",
  "zypper",
  "npm",
  "pip",
  "uv",
] as const satisfies readonly ClientKind[];

/** Whether a kind of client is a package manager (its files count as installs). */
export function isInstaller(client: ClientKind): boolean {
  return (INSTALLER_KINDS as readonly ClientKind[]).includes(client);
}

export interface ClientOfRequest {
  client: ClientKind;
  /** The distribution the client says it runs on ("Fedora Linux 40"), when it says so. */
  distribution?: string;
}

/** At most this many characters of a distribution name are kept (a user agent is free text). */
export const DISTRIBUTION_MAX = 64;

/**
 * The kind of client from its User-Agent. apt: "Debian APT-HTTP/1.3 (2.6.1)" (and
 * "Debian APT-CURL/1.0" of old apt); dnf and yum: "libdnf (Fedora Linux 40; …; Linux.x86_64)",
 * "dnf/4.14.0", "urlgrabber/… yum/3.4.3"; zypper (libzypp): "ZYpp 17.31.15 (curl 8.6.0)
 * openSUSE-Tumbleweed-x86_64"; curl and wget by their names; a browser by the "Mozilla/5.0 (…)"
 * every browser sends, unless it names a bot. libdnf's and libzypp's user agents name the
 * distribution: it is kept.
 */
export function classifyClient(userAgent: string | null | undefined): ClientOfRequest {
  const ua = (userAgent ?? "").trim();
  if (/\bAPT-(?:HTTP|CURL)\//i.test(ua) || /^apt[-/]/i.test(ua)) return { client: "apt" };
  const libdnf = /^libdnf \(([^;)]*)/i.exec(ua);
  if (libdnf) {
    const distribution = libdnf[1]!.trim().slice(0, DISTRIBUTION_MAX);
    return distribution ? { client: "dnf", distribution } : { client: "dnf" };
  }
  if (/^(?:dnf|microdnf|libdnf|yum|urlgrabber)\b/i.test(ua) || /\byum\/\d/i.test(ua))
    return { client: "dnf" };
  const zypp = /^ZYpp [^\s(]+(?: \([^)]*\))?\s*(.*)$/.exec(ua);
  if (zypp) {
    const distribution = zypp[1]!.trim().slice(0, DISTRIBUTION_MAX);
    return distribution ? { client: "zypper", distribution } : { client: "zypper" };
  }
  if (/^(?:zypper|libzypp)\b/i.test(ua)) return { client: "zypper" };
  // npm: "npm/10.8.2 node/v20.20.2 linux x64 workspaces/false"; yarn, pnpm and bun fetch the
  // same tarballs. pip: "pip/23.0.1 {…}"; uv: "uv/0.4.18 {…}".
  if (/^(?:npm|yarn|pnpm|bun)\//i.test(ua)) return { client: "npm" };
  if (/^pip\//i.test(ua)) return { client: "pip" };
  if (/^uv\//i.test(ua)) return { client: "uv" };
  if (/^(?:curl|wget|Wget)\//i.test(ua) || /^wget\b/i.test(ua)) return { client: "curl" };
  if (/^Mozilla\/5\.0 \(/.test(ua) && !/bot|crawler|spider|headless/i.test(ua)) return { client: "browser" };
  return { client: "other" };
}

// ---------------------------------------------------------------------------------------------
// GET /api/v1/projects/{slug}/stats

export const STATS_GROUPINGS = ["day", "file", "version", "client", "distribution"] as const;
export type StatsGrouping = (typeof STATS_GROUPINGS)[number];

/** The longest period one query may cover, in days (both ends included). */
export const STATS_MAX_DAYS = 366;
/** The period when none is asked for: the last 30 days, today included. */
export const STATS_DEFAULT_DAYS = 30;

const day = (field: "from" | "to") =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, `${field} must be a date as YYYY-MM-DD`)
    .refine((value) => {
      const date = new Date(`${value}T00:00:00Z`);
      return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
    }, `${field} must be a real calendar date`);

/** A UTC day as YYYY-MM-DD. */
export const utcDay = (date: Date) => date.toISOString().slice(0, 10);

/** The day `days` after (or before) a YYYY-MM-DD day. */
export function addDays(value: string, days: number): string {
  const date = new Date(`${value}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return utcDay(date);
}

/** The query as sent (strings); statsPeriod resolves the defaults against today. */
export const statsQuery = z
  .object({
    from: day("from").optional(),
    to: day("to").optional(),
    by: z.enum(STATS_GROUPINGS, { error: `by must be one of ${STATS_GROUPINGS.join(", ")}` }).default("day"),
    version: z.string().min(1).max(128).optional().describe("Only this release's files"),
  })
  .strict();
export type StatsQueryInput = z.input<typeof statsQuery>;

export interface StatsPeriod {
  from: string;
  to: string;
}

/** A period the query cannot have: the field at fault and why. */
export interface StatsPeriodError {
  field: "from" | "to";
  message: string;
}

/**
 * from and to (both included, UTC days): to defaults to today, from to 29 days before to. A
 * period that ends before it starts or spans more than STATS_MAX_DAYS is an error (the API
 * answers it 400 VALIDATION_FAILED).
 */
export function statsPeriod(
  query: { from?: string; to?: string },
  today: string,
): StatsPeriod | { error: StatsPeriodError } {
  const to = query.to ?? (query.from && query.from > today ? query.from : today);
  const from = query.from ?? addDays(to, -(STATS_DEFAULT_DAYS - 1));
  if (from > to) return { error: { field: "from", message: "from must not be after to" } };
  if (addDays(from, STATS_MAX_DAYS - 1) < to)
    return { error: { field: "to", message: `A period may span at most ${STATS_MAX_DAYS} days` } };
  return { from, to };
}

/** Every day of a period, in order. */
export function daysOf(period: StatsPeriod): string[] {
  const days: string[] = [];
  for (let d = period.from; d <= period.to; d = addDays(d, 1)) days.push(d);
  return days;
}

export const statsRow = z.object({
  key: z
    .string()
    .describe(
      "What the row counts: the day (YYYY-MM-DD), the filename, the version, the client kind or the distribution (empty: not known)",
    ),
  version: z.string().optional().describe("by=file: the release the file belongs to"),
  installs: z
    .number()
    .int()
    .describe("Files delivered to their last byte to a package manager (apt, dnf/yum, zypper, npm, pip, uv)"),
  downloads: z
    .number()
    .int()
    .describe(
      "Files delivered to their last byte to any other client (a browser, curl, a script); not installs",
    ),
  bytes: z.number().int().describe("Bytes sent, ranges, cut-off transfers and signature files included"),
  machines: z
    .number()
    .int()
    .optional()
    .describe(
      "by=day: distinct machines that installed or downloaded a file that day; by=client: those of the kind, added up over the days. Not given for the other groupings, nor with `version`",
    ),
});
export type StatsRow = z.infer<typeof statsRow>;

export const statsTotal = z.object({
  installs: z.number().int(),
  downloads: z.number().int(),
  bytes: z.number().int(),
  machines: z
    .number()
    .int()
    .optional()
    .describe(
      "Distinct machines of each day, added up over the period (a machine on two days counts twice); not given with `version` (machines are counted per project)",
    ),
});
export type StatsTotal = z.infer<typeof statsTotal>;

export const projectStats = z.object({
  from: z.string(),
  to: z.string(),
  by: z.enum(STATS_GROUPINGS),
  version: z.string().optional(),
  total: statsTotal,
  rows: z
    .array(statsRow)
    .describe(
      "by=day: every day of the period, in order (zero days included); otherwise most installs and downloads first",
    ),
});
export type ProjectStats = z.infer<typeof projectStats>;

/** Shields-style compact numbers for the downloads and installs badges: 999, 1.2k, 12k, 3.4M. */
export function formatBadgeCount(count: number): string {
  const compact = (value: number, unit: string) => {
    const rounded = value < 10 ? Math.floor(value * 10) / 10 : Math.floor(value);
    return `${rounded}${unit}`;
  };
  if (count < 1000) return String(count);
  if (count < 1_000_000) return compact(count / 1000, "k");
  if (count < 1_000_000_000) return compact(count / 1_000_000, "M");
  return compact(count / 1_000_000_000, "G");
}
