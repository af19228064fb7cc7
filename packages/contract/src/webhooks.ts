// Webhooks (docs/webhooks.md, decision 032): a project's subscriptions, their deliveries, and
// the JSON payloads Packyard POSTs. The server parses requests with these schemas, the dashboard
// shares them, and the OpenAPI document describes every payload from them.
import { z } from "zod";

/** The events a webhook may subscribe to. `ping` (a test delivery) is sent on request only. */
export const WEBHOOK_EVENTS = [
  "release.created",
  "release.yanked",
  "release.unyanked",
  "file.uploaded",
  "file.deleted",
  "repository.published",
  "key.rotated",
  "image.pushed",
  "image.deleted",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const webhookEvent = z.enum(WEBHOOK_EVENTS);

/** What each event means, for the dashboard's checkboxes and the docs. */
export const webhookEventDescriptions: Record<WebhookEvent, string> = {
  "release.created": "A release was created",
  "release.yanked": "A release was yanked",
  "release.unyanked": "A yanked release was restored",
  "file.uploaded": "A file was uploaded to a release",
  "file.deleted": "A file was deleted from a release",
  "repository.published": "The APT and YUM repositories were published with the latest changes",
  "key.rotated": "The project's signing key was rotated",
  "image.pushed": "A container image was pushed (a manifest, by tag or digest)",
  "image.deleted": "A container image's tag or manifest was deleted",
};

/** Header names of every delivery. */
export const WEBHOOK_SIGNATURE_HEADER = "Packyard-Signature";
export const WEBHOOK_EVENT_HEADER = "Packyard-Event";
export const WEBHOOK_DELIVERY_HEADER = "Packyard-Delivery";

function isHttpUrl(value: string): boolean {
  const url = URL.parse(value);
  return url !== null && (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}

export const webhookUrl = z
  .string()
  .trim()
  .min(1, "URL is required")
  .max(2000, "URL must be at most 2000 characters")
  .refine(isHttpUrl, "URL must be an http(s) URL")
  .refine((value) => {
    const url = URL.parse(value);
    return url === null || (url.username === "" && url.password === "");
  }, "URL must not contain credentials: check the signature instead");

const eventList = z
  .array(webhookEvent)
  .min(1, "Choose at least one event")
  .transform((events) => WEBHOOK_EVENTS.filter((e) => events.includes(e)));

export const createWebhookInput = z.object({
  url: webhookUrl,
  events: eventList,
  description: z.string().trim().max(200, "Description must be at most 200 characters").optional(),
  active: z.boolean().default(true),
});
export type CreateWebhookInput = z.input<typeof createWebhookInput>;

export const updateWebhookInput = z.object({
  url: webhookUrl.optional(),
  events: eventList.optional(),
  description: z.string().trim().max(200, "Description must be at most 200 characters").optional(),
  /** true re-enables a webhook that was disabled after failing (and clears its failure streak). */
  active: z.boolean().optional(),
});
export type UpdateWebhookInput = z.input<typeof updateWebhookInput>;

export const webhook = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(webhookEvent),
  active: z.boolean(),
  /** Why it is inactive when Packyard turned it off ("failing"), else null. */
  disabledReason: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Since when every delivery has failed; null while the last one succeeded. */
  failingSince: z.string().nullable(),
  /** Attempts in a row that got no answer (timed out, connection failed); 0 once one is answered. */
  consecutiveTimeouts: z.number().int(),
  /** Deliveries wait until then: paused after 5 attempts in a row without an answer; else null. */
  pausedUntil: z.string().nullable(),
});
export type Webhook = z.infer<typeof webhook>;

/** A webhook as answered when it was created or its secret rotated: the secret, this once. */
export const webhookWithSecret = webhook.extend({
  secret: z.string().describe("The signing secret: shown only now"),
});
export type WebhookWithSecret = z.infer<typeof webhookWithSecret>;

export const webhookAttempt = z.object({
  at: z.string(),
  /** The receiver's HTTP status, or null when no response came (refused, timeout). */
  status: z.number().int().nullable(),
  durationMs: z.number().int(),
  /** The start of the response body (at most 1 KB). */
  responseExcerpt: z.string().nullable(),
  error: z.string().nullable(),
});
export type WebhookAttempt = z.infer<typeof webhookAttempt>;

export const WEBHOOK_DELIVERY_STATES = ["pending", "sending", "delivered", "failed"] as const;

export const webhookDelivery = z.object({
  id: z.string(),
  event: z.union([webhookEvent, z.literal("ping")]),
  state: z.enum(WEBHOOK_DELIVERY_STATES),
  createdAt: z.string(),
  /** When the next attempt is due, while pending. */
  nextAttemptAt: z.string().nullable(),
  /** The delivery this one repeats (redeliver), if any. */
  redeliveryOf: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()),
  attempts: z.array(webhookAttempt),
});
export type WebhookDelivery = z.infer<typeof webhookDelivery>;

// ---------------------------------------------------------------------------------------------
// Payloads: every delivery's body is `{ id, event, createdAt, project, data }`.

const projectRef = z.object({
  id: z.string(),
  slug: z.string(),
  owner: z.string().describe("The owner's username"),
  url: z.string().describe("The project's public page"),
});

const releaseRef = z.object({
  id: z.string(),
  version: z.string(),
  title: z.string().nullable(),
  yanked: z.boolean(),
  yankedReason: z.string().nullable(),
  url: z.string().describe("The release's public page"),
});

const fileRef = z.object({
  filename: z.string(),
  size: z.number().int(),
  sha256: z.string(),
  kind: z.string(),
  url: z.string().describe("The stable download URL"),
});

const envelope = <E extends string, D extends z.ZodType>(event: E, data: D) =>
  z.object({
    id: z
      .string()
      .describe(
        "The event's id: the same for every webhook it is sent to and in a redelivery (the Packyard-Delivery header names the delivery)",
      ),
    event: z.literal(event),
    createdAt: z.string().describe("When the event happened (ISO 8601)"),
    project: projectRef,
    data,
  });

export const webhookPayloads = {
  "release.created": envelope("release.created", z.object({ release: releaseRef })),
  "release.yanked": envelope("release.yanked", z.object({ release: releaseRef })),
  "release.unyanked": envelope("release.unyanked", z.object({ release: releaseRef })),
  "file.uploaded": envelope("file.uploaded", z.object({ release: releaseRef, file: fileRef })),
  "file.deleted": envelope(
    "file.deleted",
    z.object({ release: releaseRef, file: fileRef.pick({ filename: true, sha256: true, kind: true }) }),
  ),
  "repository.published": envelope(
    "repository.published",
    z.object({
      revision: z.number().int().describe("The change-log revision now served"),
      repositories: z.array(z.object({ format: z.enum(["apt", "yum"]), name: z.string() })),
      sinceChangeMs: z
        .number()
        .int()
        .nullable()
        .describe(
          "Milliseconds from the oldest change this publish includes (an upload, a yank, a deletion) to its index being served; null for a publish with no package change (a re-signing)",
        ),
    }),
  ),
  "key.rotated": envelope(
    "key.rotated",
    z.object({
      fingerprint: z.string().describe("The new signing key"),
      previous: z.array(z.string()).describe("Keys that keep signing until their overlap ends"),
      keyringUrl: z.string(),
    }),
  ),
  "image.pushed": envelope(
    "image.pushed",
    z.object({
      image: z.string().describe("What docker pull takes: {host}/{owner}/{project}[/{image}]"),
      tag: z.string().nullable().describe("The tag pushed; null for a push by digest"),
      digest: z.string(),
      mediaType: z.string(),
      size: z.number().int().describe("The manifest's size in bytes"),
    }),
  ),
  "image.deleted": envelope(
    "image.deleted",
    z.object({
      image: z.string(),
      tag: z.string().nullable().describe("The tag deleted; null when a manifest was deleted by digest"),
      digest: z.string().nullable().describe("The manifest deleted by digest; null for a tag"),
    }),
  ),
  ping: envelope("ping", z.object({ webhook: z.object({ id: z.string(), events: z.array(webhookEvent) }) })),
} as const;
export type WebhookPayload<E extends keyof typeof webhookPayloads> = z.infer<(typeof webhookPayloads)[E]>;
