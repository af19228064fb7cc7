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
