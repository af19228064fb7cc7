// The profile form (spec §5): one schema for the browser's check and the server's, with the
// spec's messages word for word. A username is part of public URLs, so what happens when it
// changes (the old one redirects and is held) is the web app's server/accounts/usernames.ts
// (docs/decisions/014-username-changes.md).
import { z } from "zod";
import { emailSchema } from "./account.ts";

export const USERNAME_MIN = 3;
export const USERNAME_MAX = 30;
export const PROFILE_NAME_MAX = 100;

/** How long an old username keeps redirecting to the new one and stays its owner's alone. */
export const USERNAME_HOLD_DAYS = 90;

export const profileUsername = z
  .string()
  .trim()
  .min(USERNAME_MIN, `Username must be at least ${USERNAME_MIN} characters`)
  .max(USERNAME_MAX, `Username must be at most ${USERNAME_MAX} characters`)
  .regex(/^[A-Za-z0-9_-]+$/, "Username can only contain letters, numbers, underscores, and hyphens");

export const profileName = z
  .string()
  .trim()
  .min(1, "Name is required")
  .max(PROFILE_NAME_MAX, `Name must be at most ${PROFILE_NAME_MAX} characters`);

export const profileSchema = z.object({
  username: profileUsername,
  name: profileName,
});

export type ProfileInput = z.infer<typeof profileSchema>;

/** A new sign-in address: valid, compared and stored lowercased (as better-auth does). */
export const changeEmailSchema = z.object({
  email: z.string().trim().toLowerCase().pipe(emailSchema),
});

export type ChangeEmailInput = z.infer<typeof changeEmailSchema>;
