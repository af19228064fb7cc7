// Entitlement tokens (docs/entitlements.md, issue 40): what a publisher gives each customer to
// read a private project's packages and files — named, limited, counted, never an API key. The
// server parses requests with these schemas, the dashboard and the CLI share them.
import { z } from "zod";

/** Every entitlement token starts so: told apart from API keys (pky_) before any lookup. */
export const ENTITLEMENT_TOKEN_PREFIX = "pke_";

/** How long a rotated token's old secret keeps working unless the rotation says otherwise. */
export const DEFAULT_ROTATION_OVERLAP_HOURS = 24;
/** The longest overlap a rotation may give the old secret: 30 days. */
export const MAX_ROTATION_OVERLAP_HOURS = 720;

/** APT distributions and YUM groups as uploads name them (formats/apt/ingest.ts, formats/yum/ingest.ts). */
const SUITE = /^[a-z0-9][a-z0-9.+-]{0,63}$/;
const GROUP = /^$|^[a-z0-9][a-z0-9._-]{0,63}$/;

// ---------------------------------------------------------------------------------------------
// Version ranges: comparators joined by spaces (all must hold), alternatives by `||`, as npm
// and Cargo write them: `>=2.0 <3.0`, `=1.4.2`, `>=1 <2 || >=4`. A bare version means `=`.
// Versions are compared as the format of the file compares them (a .deb as dpkg does, an .rpm
// as rpm does, a release's version as dpkg does); the range itself only parses.

export type RangeOperator = ">=" | "<=" | ">" | "<" | "=";
export interface Comparator {
  operator: RangeOperator;
  version: string;
}
/** Alternatives, each a list of comparators that must all hold. */
export type VersionRange = Comparator[][];

const COMPARATOR = /^(>=|<=|>|<|=)?([0-9A-Za-z~][0-9A-Za-z.+~:_-]*)$/;
export const MAX_VERSION_RANGE_LENGTH = 200;

/** The range, or a sentence saying what is wrong with it. */
export function parseVersionRange(text: string): { range: VersionRange } | { problem: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { problem: "Version range is empty: leave it out to allow every version" };
  if (trimmed.length > MAX_VERSION_RANGE_LENGTH)
    return { problem: `Version range must be at most ${MAX_VERSION_RANGE_LENGTH} characters` };
  const range: VersionRange = [];
  for (const alternative of trimmed.split("||")) {
    // `>= 2.0` is read as `>=2.0`.
    const words = alternative
      .trim()
      .replace(/(>=|<=|>|<|=)\s+/g, "$1")
      .split(/\s+/);
    if (words.length === 1 && words[0] === "")
      return { problem: "Version range has an empty alternative around ||" };
    const comparators: Comparator[] = [];
    for (const word of words) {
      const match = COMPARATOR.exec(word);
      if (!match)
        return {
          problem: `Version range: "${word}" is not a comparator such as >=2.0, <3.0 or =1.4.2`,
        };
      comparators.push({ operator: (match[1] ?? "=") as RangeOperator, version: match[2]! });
    }
    range.push(comparators);
  }
  return { range };
}

/** Whether `version` is in the range, with `compare` the format's version order (<0, 0, >0). */
export function versionInRange(
  range: VersionRange,
  version: string,
  compare: (a: string, b: string) => number,
): boolean {
  return range.some((all) =>
    all.every(({ operator, version: bound }) => {
      const c = compare(version, bound);
      if (operator === ">=") return c >= 0;
      if (operator === "<=") return c <= 0;
      if (operator === ">") return c > 0;
      if (operator === "<") return c < 0;
      return c === 0;
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Requests.

const isoDate = (label: string) =>
  z
    .string()
    .trim()
    .refine((value) => !Number.isNaN(Date.parse(value)), `${label} must be a date and time (ISO 8601)`)
    .transform((value) => new Date(value).toISOString());

const versionRange = z
  .string()
  .max(MAX_VERSION_RANGE_LENGTH, `Version range must be at most ${MAX_VERSION_RANGE_LENGTH} characters`)
  .superRefine((value, ctx) => {
    const parsed = parseVersionRange(value);
    if ("problem" in parsed) ctx.addIssue({ code: "custom", message: parsed.problem });
  })
  .transform((value) => value.trim().replace(/\s+/g, " "));

const limits = {
  validFrom: isoDate("validFrom").nullable().optional(),
  validUntil: isoDate("validUntil").nullable().optional(),
  maxDownloads: z
    .number()
    .int("maxDownloads must be a whole number")
    .min(1, "maxDownloads must be at least 1")
    .max(1_000_000_000_000, "maxDownloads is too large")
    .nullable()
    .optional(),
  maxBytesPerMonth: z
    .number()
    .int("maxBytesPerMonth must be a whole number of bytes")
    .min(1, "maxBytesPerMonth must be at least 1")
    .max(Number.MAX_SAFE_INTEGER, "maxBytesPerMonth is too large")
    .nullable()
    .optional(),
  suites: z
    .array(
      z.string().regex(SUITE, "A suite must be lowercase letters, digits, . + or -, at most 64 characters"),
    )
    .min(1, "suites: name at least one, or leave it out to allow every suite")
    .max(100, "suites: at most 100")
    .transform((list) => [...new Set(list)])
    .nullable()
    .optional(),
  groups: z
    .array(
      z
        .string()
        .regex(
          GROUP,
          'A group must be lowercase letters, digits, . _ or -, at most 64 characters ("" is the repository root)',
        ),
    )
    .min(1, "groups: name at least one, or leave it out to allow every group")
    .max(100, "groups: at most 100")
    .transform((list) => [...new Set(list)])
    .nullable()
    .optional(),
  versionRange: versionRange.nullable().optional(),
};

const entitlementName = z
  .string()
  .trim()
  .min(1, "Name is required: the customer the token is for")
  .max(100, "Name must be at most 100 characters");
const entitlementNote = z.string().trim().max(500, "Note must be at most 500 characters");

function datesInOrder(value: { validFrom?: string | null; validUntil?: string | null }): boolean {
  return !value.validFrom || !value.validUntil || value.validFrom < value.validUntil;
}
const DATES_MESSAGE = { message: "validUntil must be after validFrom", path: ["validUntil"] };

export const createEntitlementInput = z
  .object({
    name: entitlementName,
    note: entitlementNote.nullable().optional(),
    ...limits,
  })
  .strict()
  .refine(datesInOrder, DATES_MESSAGE);
export type CreateEntitlementInput = z.infer<typeof createEntitlementInput>;

const projectList = z
  .array(z.string().trim().min(1))
  .min(1, "projects: name at least one of the organization's projects")
  .max(500, "projects: at most 500")
  .transform((list) => [...new Set(list)]);

/** An organization's token also names the projects it reads (their slugs). */
export const createOrgEntitlementInput = z
  .object({
    name: entitlementName,
    note: entitlementNote.nullable().optional(),
    projects: projectList,
    ...limits,
  })
  .strict()
  .refine(datesInOrder, DATES_MESSAGE);
export type CreateOrgEntitlementInput = z.infer<typeof createOrgEntitlementInput>;

/** A change: enable or disable, rename, new limits (null clears one). */
export const updateEntitlementInput = z
  .object({
    enabled: z.boolean().optional(),
    name: entitlementName.optional(),
    note: entitlementNote.nullable().optional(),
    projects: projectList.optional(),
    ...limits,
  })
  .strict()
  .refine(datesInOrder, DATES_MESSAGE);
export type UpdateEntitlementInput = z.infer<typeof updateEntitlementInput>;

export const rotateEntitlementInput = z
  .object({
    overlapHours: z
      .number()
      .min(0, "overlapHours must be 0 or more")
      .max(MAX_ROTATION_OVERLAP_HOURS, `overlapHours must be at most ${MAX_ROTATION_OVERLAP_HOURS} (30 days)`)
      .default(DEFAULT_ROTATION_OVERLAP_HOURS),
  })
  .strict();
export type RotateEntitlementInput = z.infer<typeof rotateEntitlementInput>;

// ---------------------------------------------------------------------------------------------
// Answers.

export const entitlementSummary = z.object({
  id: z.string(),
  name: z.string(),
  note: z.string().nullable(),
  enabled: z.boolean(),
  /** The first characters of the secret, to recognise it (pke_ and four more). */
  start: z.string().describe("The first characters of the secret, to recognise it"),
  /** The projects it reads, as owner/slug. */
  projects: z.array(z.string()).describe("The projects it reads, as owner/slug"),
  validFrom: z.string().nullable(),
  validUntil: z.string().nullable(),
  maxDownloads: z.number().nullable(),
  maxBytesPerMonth: z.number().nullable(),
  suites: z.array(z.string()).nullable(),
  groups: z.array(z.string()).nullable(),
  versionRange: z.string().nullable(),
  /** The old secret after a rotation works until then (null: no overlap running). */
  previousValidUntil: z
    .string()
    .nullable()
    .describe("After a rotation, the old secret works until then; null when no overlap runs"),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastUsed: z
    .object({ at: z.string(), address: z.string().nullable(), client: z.string().nullable() })
    .nullable(),
  /** Files served with it in all, and its bytes this calendar month (UTC). */
  downloads: z.number().describe("Files answered with the token, in all (the maxDownloads count)"),
  bytesThisMonth: z.number().describe("Bytes served with the token this calendar month (UTC)"),
});
export type EntitlementSummary = z.infer<typeof entitlementSummary>;

export const entitlementUsageDay = z.object({
  /** YYYY-MM-DD, UTC. */
  day: z.string(),
  downloads: z
    .number()
    .describe(
      "Files fetched by browsers, curl and other clients (signatures and checksum lists not counted)",
    ),
  installs: z.number().describe("Files fetched by a package manager (apt, dnf/yum, zypper)"),
  bytes: z.number(),
  /** Distinct machines (address and client) that used the token that day. */
  machines: z.number().describe("Distinct machines (address and client) that used the token that day"),
});
export type EntitlementUsageDay = z.infer<typeof entitlementUsageDay>;

/** Days of usage one answer covers at most, and by default. */
export const ENTITLEMENT_USAGE_MAX_DAYS = 366;
export const ENTITLEMENT_USAGE_DEFAULT_DAYS = 30;
