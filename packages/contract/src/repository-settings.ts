// A project's repository settings (decision 027): how long its signing keys live, whether its
// APT Release files carry Valid-Until, and their Origin, Label and Codename. The API and the
// dashboard parse with these schemas; the server keeps the rules they cannot see (defaults).
import { z } from "zod";

/** New keys live at least this long: the successor comes 14 days before expiry (ROTATION_LEAD_DAYS). */
export const KEY_EXPIRY_MIN_DAYS = 90;
/** How long before a key expires its successor is made (signing-keys/lifecycle.ts). */
export const ROTATION_LEAD_DAYS = 14;
export const KEY_EXPIRY_MAX_DAYS = 3650;
export const VALID_UNTIL_MIN_DAYS = 1;
export const VALID_UNTIL_MAX_DAYS = 365;

const keyExpiryMessage = `Key expiry must be a whole number of days from ${KEY_EXPIRY_MIN_DAYS} to ${KEY_EXPIRY_MAX_DAYS}, or none`;
const validUntilMessage = `The Valid-Until period must be a whole number of days from ${VALID_UNTIL_MIN_DAYS} to ${VALID_UNTIL_MAX_DAYS}`;

export const keyExpiryDays = z
  .number(keyExpiryMessage)
  .int(keyExpiryMessage)
  .min(KEY_EXPIRY_MIN_DAYS, keyExpiryMessage)
  .max(KEY_EXPIRY_MAX_DAYS, keyExpiryMessage);

export const validUntilDays = z
  .number(validUntilMessage)
  .int(validUntilMessage)
  .min(VALID_UNTIL_MIN_DAYS, validUntilMessage)
  .max(VALID_UNTIL_MAX_DAYS, validUntilMessage);

/** Origin and Label: one line of printable ASCII, as apt compares them byte for byte. */
function releaseLine(field: "Origin" | "Label") {
  return z
    .string(`${field} must be text`)
    .trim()
    .max(100, `${field} must be at most 100 characters`)
    .regex(/^[\x20-\x7e]*$/, `${field} may only contain printable ASCII characters (no line breaks)`);
}

/** A suite token, as Release's Codename must be. */
export const releaseCodename = z
  .string("Codename must be text")
  .trim()
  .max(64, "Codename must be at most 64 characters")
  .regex(
    /^(?:[A-Za-z0-9][A-Za-z0-9._+-]*)?$/,
    "Codename must start with a letter or digit and contain only letters, digits, '.', '_', '+' and '-'",
  );

/** null or "" puts the default back. */
const orDefault = <T extends z.ZodType<string>>(schema: T) =>
  schema
    .nullable()
    .optional()
    .transform((value) => (value === "" ? null : value));

/** PATCH /api/v1/projects/{slug}/repository-settings: only the fields sent change. */
export const updateRepositorySettingsInput = z.object({
  /** Days new signing keys are valid for; null: they never expire. */
  keyExpiryDays: keyExpiryDays.nullable().optional(),
  /** APT Release files carry Valid-Until = signing time + this many days; null: off. */
  aptValidUntilDays: validUntilDays.nullable().optional(),
  aptOrigin: orDefault(releaseLine("Origin")),
  aptLabel: orDefault(releaseLine("Label")),
  /** The Codename of the default suite (stable). */
  aptCodename: orDefault(releaseCodename),
});
export type UpdateRepositorySettingsInput = z.infer<typeof updateRepositorySettingsInput>;

const releaseFields = z.object({ aptOrigin: z.string(), aptLabel: z.string(), aptCodename: z.string() });

export const repositorySettings = z.object({
  keyExpiryDays: z.number().int().nullable(),
  aptValidUntilDays: z.number().int().nullable(),
  ...releaseFields.shape,
  /** What Origin, Label and Codename are when not set. */
  defaults: releaseFields,
});
export type RepositorySettings = z.infer<typeof repositorySettings>;
