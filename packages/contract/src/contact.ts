// The contact form (spec §3, §5): one schema for the browser's check and the server's, with the
// spec's messages word for word. What the server adds (the CSRF token's signature, the honeypot,
// the rate limit) is in the web app's server/site/contact.ts.
import { z } from "zod";

export const contactTypes = ["general", "support", "sales", "partnership"] as const;
export type ContactType = (typeof contactTypes)[number];

export const contactTypeLabels: Record<ContactType, string> = {
  general: "General",
  support: "Support",
  sales: "Sales",
  partnership: "Partnership",
};

export const CONTACT_NAME_MAX = 100;
export const CONTACT_SUBJECT_MAX = 200;
export const CONTACT_MESSAGE_MAX = 5000;

export const contactSchema = z.object({
  name: z
    .string()
    .trim()
    .min(2, "Name must be at least 2 characters")
    .max(CONTACT_NAME_MAX, `Name must be at most ${CONTACT_NAME_MAX} characters`),
  email: z.string().trim().toLowerCase().pipe(z.email("Please enter a valid email address")),
  subject: z
    .string()
    .trim()
    .min(5, "Subject must be at least 5 characters")
    .max(CONTACT_SUBJECT_MAX, `Subject must be at most ${CONTACT_SUBJECT_MAX} characters`),
  message: z
    .string()
    .trim()
    .min(10, "Message must be at least 10 characters")
    .max(CONTACT_MESSAGE_MAX, `Message must be at most ${CONTACT_MESSAGE_MAX} characters`),
  type: z.enum(contactTypes, "Choose what your message is about"),
  csrfToken: z.string().optional(),
});

export type ContactInput = z.infer<typeof contactSchema>;

/** How many messages one client address may send in an hour. */
export const CONTACT_MESSAGES_PER_HOUR = 5;
