// The choices a new API key offers and the schema of the form that picks them, shared by the
// form (which checks it before posting) and the /api-keys action (which checks it again).
import { z } from "zod";
import { list, text } from "../../lib/forms.ts";

/** better-auth's api-key plugin refuses longer names. */
export const KEY_NAME_MAX = 32;

export const EXPIRY_OPTIONS = [
  { value: "never", label: "Never", days: null },
  { value: "30", label: "30 days", days: 30 },
  { value: "90", label: "90 days", days: 90 },
  { value: "365", label: "1 year", days: 365 },
] as const;
export type ExpiryChoice = (typeof EXPIRY_OPTIONS)[number]["value"];
export const EXPIRY_VALUES = EXPIRY_OPTIONS.map((o) => o.value) as [ExpiryChoice, ...ExpiryChoice[]];

export const createKeyForm = z
  .object({
    name: text(
      z
        .string()
        .trim()
        .min(1, "Give the key a name")
        .max(KEY_NAME_MAX, `Name must be at most ${KEY_NAME_MAX} characters`),
    ),
    expiry: text(z.enum(EXPIRY_VALUES, { message: "Choose when the key expires" })),
    scope: text(z.enum(["all", "projects"], { message: "Choose which projects the key may use" })),
    projectIds: list(z.array(z.string().min(1)).max(500)),
    access: text(z.enum(["read", "publish"], { message: "Choose read or publish access" })),
  })
  .refine((v) => v.scope === "all" || v.projectIds.length > 0, {
    path: ["projectIds"],
    message: "Choose at least one project",
  });
