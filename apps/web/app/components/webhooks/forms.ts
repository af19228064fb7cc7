// The webhook form (add and edit) of /projects/{slug}/webhooks: one schema, checked in the browser
// and again by the action, over the contract's own rules for URLs and events.
import { webhookEvent, webhookUrl } from "@packyard/contract";
import { z } from "zod";
import { list, text, trimmed } from "../../lib/forms.ts";

export const webhookForm = z.object({
  url: trimmed(text(webhookUrl)),
  description: text(z.string().trim().max(200, "Description must be at most 200 characters")),
  events: list(z.array(webhookEvent).min(1, "Choose at least one event")),
});
