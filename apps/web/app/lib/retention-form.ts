// The retention form (decision 034), shared by the browser and the settings action: the
// contract's rules, read from checkboxes and number fields.
import { retentionRules } from "@packyard/contract";
import { z } from "zod";

const checkbox = z.preprocess((value) => value === "on", z.boolean());
/** A whole number typed in a field; empty or not a number reaches the schema as NaN, which it refuses. */
const count = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value) => {
    const typed = typeof value === "string" ? value.trim() : "";
    return typed === "" ? Number.NaN : Number(typed);
  }, schema);

/** An optional whole number: empty is null (no rule). */
const optionalCount = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value) => {
    const typed = typeof value === "string" ? value.trim() : "";
    return typed === "" ? null : Number(typed);
  }, schema);

export const retentionForm = z.object({
  intent: z.enum(["retention-save", "retention-preview"]),
  enabled: checkbox,
  keepReleases: count(retentionRules.shape.keepReleases),
  keepNewestPerMajor: checkbox,
  minAgeDays: count(retentionRules.shape.minAgeDays),
  countYanked: checkbox,
  deleteLatest: checkbox,
  keepImageTags: optionalCount(retentionRules.shape.keepImageTags),
});
