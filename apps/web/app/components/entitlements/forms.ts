// The form that creates an entitlement token on /projects/{slug}/entitlements: one schema, checked
// in the browser and again by the action, turned into the API's request (the contract's rules).
import type { CreateEntitlementInput } from "@packyard/contract/entitlements.ts";
import { parseVersionRange } from "@packyard/contract/entitlements.ts";
import { z } from "zod";
import { list, text, trimmed } from "../../lib/forms.ts";

const GIB = 1024 ** 3;

/** An optional whole number from a text field. */
const wholeNumber = (message: string) =>
  trimmed(
    text(
      z
        .string()
        .regex(/^\d{0,15}$/, message)
        .transform((value) => (value === "" ? undefined : Number(value)))
        .refine((value) => value === undefined || value >= 1, message),
    ),
  );

/** A comma-separated list: its items, or undefined when empty. */
const commaList = (pattern: RegExp, message: string) =>
  text(
    z
      .string()
      .transform((value) =>
        value
          .split(",")
          .map((item) => item.trim())
          .filter(Boolean),
      )
      .refine((items) => items.every((item) => pattern.test(item)), message)
      .transform((items) => (items.length === 0 ? undefined : items)),
  );

export const entitlementForm = z.object({
  name: trimmed(
    text(
      z
        .string()
        .min(1, "Name is required: the customer the token is for")
        .max(100, "Name must be at most 100 characters"),
    ),
  ),
  note: trimmed(text(z.string().max(500, "Note must be at most 500 characters"))),
  validUntil: trimmed(
    text(
      z
        .string()
        .regex(/^(\d{4}-\d{2}-\d{2})?$/, "Choose a date")
        .transform((value) => (value === "" ? undefined : `${value}T23:59:59.000Z`)),
    ),
  ),
  maxDownloads: wholeNumber("Downloads must be a whole number, 1 or more"),
  maxGigabytesPerMonth: wholeNumber("GB a month must be a whole number, 1 or more"),
  suites: commaList(
    /^[a-z0-9][a-z0-9.+-]{0,63}$/,
    "Suites are lowercase names such as stable, separated by commas",
  ),
  groups: commaList(
    /^[a-z0-9][a-z0-9._-]{0,63}$/,
    "Groups are lowercase names such as el9, separated by commas",
  ),
  versionRange: trimmed(
    text(
      z.string().superRefine((value, ctx) => {
        if (value === "") return;
        const parsed = parseVersionRange(value);
        if ("problem" in parsed) ctx.addIssue({ code: "custom", message: parsed.problem });
      }),
    ),
  ),
});

export type EntitlementFormValue = z.infer<typeof entitlementForm>;

/** An organization's form also names the projects its token reads. */
export const orgEntitlementForm = entitlementForm.extend({
  projects: list(z.array(z.string()).min(1, "Choose at least one project")),
});

/** The API's request for the form's values. */
export function createRequest(value: EntitlementFormValue): CreateEntitlementInput {
  return {
    name: value.name,
    ...(value.note ? { note: value.note } : {}),
    ...(value.validUntil ? { validUntil: value.validUntil } : {}),
    ...(value.maxDownloads ? { maxDownloads: value.maxDownloads } : {}),
    ...(value.maxGigabytesPerMonth ? { maxBytesPerMonth: value.maxGigabytesPerMonth * GIB } : {}),
    ...(value.suites ? { suites: value.suites } : {}),
    ...(value.groups ? { groups: value.groups } : {}),
    ...(value.versionRange ? { versionRange: value.versionRange } : {}),
  };
}
