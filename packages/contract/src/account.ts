// Account form schemas with the exact messages of spec §5. Shared by the browser forms, the
// server actions that re-validate what they receive, and the self-hoster CLI.
import { z } from "zod";

export const emailSchema = z.email("Please enter a valid email address");

export const onboardingSchema = z.object({
  name: z
    .string()
    .trim()
    .min(2, "Full name must be at least 2 characters")
    .max(100, "Full name must be less than 100 characters"),
  username: z
    .string()
    .trim()
    .min(3, "Username must be at least 3 characters")
    .max(30, "Username must be less than 30 characters")
    .regex(
      /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/,
      "Username must be lowercase letters, numbers, hyphens (no leading/trailing hyphen)",
    ),
});

export type OnboardingInput = z.infer<typeof onboardingSchema>;

/** better-auth's length refusals (PASSWORD_TOO_SHORT/LONG) in words that give the configured limit. */
export function passwordLengthMessage(limits: { min: number; max: number }, code: string): string {
  return code === "PASSWORD_TOO_LONG"
    ? `Password must be at most ${limits.max} characters`
    : `Password must be at least ${limits.min} characters`;
}

/** A new password, checked against the server's lengths before better-auth sees it. */
export function newPasswordSchema(limits: { min: number; max: number }, required: string) {
  return z
    .string()
    .min(1, required)
    .min(limits.min, passwordLengthMessage(limits, "PASSWORD_TOO_SHORT"))
    .max(limits.max, passwordLengthMessage(limits, "PASSWORD_TOO_LONG"));
}
