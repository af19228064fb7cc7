// Changing a project's webhooks (docs/webhooks.md): adding, editing, turning on or off, deleting,
// rotating the secret, and the delivery worker turning a failing one off. Each is one change
// (use-case.ts) with its audit entry; the deliveries themselves are service.ts's.
import {
  type CreateWebhookInput,
  type UpdateWebhookInput,
  WEBHOOK_EVENTS,
  type Webhook,
  type WebhookEvent,
  type WebhookWithSecret,
} from "@packyard/contract";
import type { Selectable } from "kysely";
import type { Clock } from "../accounts/usernames.ts";
import { WEBHOOK_MANAGE_ACCESS } from "../platform/core/authorization.ts";
import { DomainError, notFound } from "../platform/core/errors.ts";
import { newRowId } from "../platform/core/ids.ts";
import { change, type Db, type PersonCaller, SYSTEM, type Tx } from "../platform/core/use-case.ts";
import type { WebhookTable } from "../platform/db/schema.ts";
import { type ProjectRow, requireOwnProject } from "../projects/storage.ts";
import { newWebhookSecret } from "./signature.ts";

/** Webhooks a project may have. */
export const MAX_WEBHOOKS_PER_PROJECT = 20;

// Webhooks are changed by a session or a key (PersonCaller), never by a job.
export type { PersonCaller };

export interface WebhookUseCaseDeps {
  db: Db;
  clock: Clock;
  /** What a webhook's URL may reach, and how its secret is sealed: the service's (WEBHOOK_ALLOW_PRIVATE, SERVER_SECRET). */
  webhooks: {
    assertAllowedUrl(url: string): Promise<void>;
    sealSecret(id: string, secret: string): string;
  };
}

type WebhookRow = Selectable<WebhookTable>;

export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as WebhookEvent[],
    active: Boolean(Number(row.active)),
    disabledReason: row.disabled_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    failingSince: row.failing_since,
    consecutiveTimeouts: Number(row.consecutive_timeouts),
    pausedUntil: row.paused_until,
  };
}

/** A project's webhook by id, or NOT_FOUND. */
export async function webhookRow(
  db: Db | Tx,
  project: Pick<ProjectRow, "id">,
  id: string,
): Promise<WebhookRow> {
  const row = await db
    .selectFrom("webhook")
    .selectAll()
    .where("id", "=", id)
    .where("project_id", "=", project.id)
    .executeTakeFirst();
  if (!row) throw notFound("Webhook not found");
  return row;
}

const projectOf = (project: ProjectRow) => ({
  ownerId: project.owner_id,
  projectId: project.id,
  projectSlug: project.slug,
});

export async function createWebhook(
  deps: WebhookUseCaseDeps,
  caller: PersonCaller,
  input: { project: string; webhook: CreateWebhookInput },
): Promise<WebhookWithSecret> {
  const { db, clock, webhooks } = deps;
  const project = await requireOwnProject(db, caller.actor, input.project, WEBHOOK_MANAGE_ACCESS);
  // The address is resolved before the transaction: a slow DNS answer holds no connection.
  await webhooks.assertAllowedUrl(input.webhook.url);
  return change(db, caller, async (tx, record) => {
    const { n } = await tx
      .selectFrom("webhook")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("project_id", "=", project.id)
      .executeTakeFirstOrThrow();
    if (Number(n) >= MAX_WEBHOOKS_PER_PROJECT)
      throw new DomainError(
        "VALIDATION_FAILED",
        `A project can have at most ${MAX_WEBHOOKS_PER_PROJECT} webhooks`,
      );
    const id = newRowId();
    const secret = newWebhookSecret();
    const now = clock().toISOString();
    const events = WEBHOOK_EVENTS.filter((e) => input.webhook.events.includes(e));
    const row: WebhookRow = {
      id,
      project_id: project.id,
      url: input.webhook.url,
      description: input.webhook.description || null,
      events: JSON.stringify(events),
      secret: webhooks.sealSecret(id, secret),
      active: input.webhook.active === false ? 0 : 1,
      disabled_reason: null,
      failing_since: null,
      created_at: now,
      updated_at: now,
      consecutive_timeouts: 0,
      paused_until: null,
      attempt_claimed_at: null,
    };
    await tx.insertInto("webhook").values(row).execute();
    record.audit({ ...projectOf(project), action: "webhook.created", target: row.url, details: { events } });
    return { ...toWebhook(row), secret };
  });
}

/** The columns a person changes; the rest (failure state, timestamps) are not named in the entry. */
const EDITABLE = ["url", "events", "description", "active"];

export async function updateWebhook(
  deps: WebhookUseCaseDeps,
  caller: PersonCaller,
  input: { project: string; id: string; webhook: UpdateWebhookInput },
): Promise<Webhook> {
  const { db, clock, webhooks } = deps;
  const project = await requireOwnProject(db, caller.actor, input.project, WEBHOOK_MANAGE_ACCESS);
  const row = await webhookRow(db, project, input.id);
  const edit = input.webhook;
  const changes: Partial<WebhookRow> = {};
  if (edit.url !== undefined && edit.url !== row.url) {
    await webhooks.assertAllowedUrl(edit.url);
    changes.url = edit.url;
  }
  if (edit.events !== undefined)
    changes.events = JSON.stringify(WEBHOOK_EVENTS.filter((e) => edit.events?.includes(e)));
  if (edit.description !== undefined) changes.description = edit.description || null;
  if (edit.active !== undefined) {
    changes.active = edit.active ? 1 : 0;
    // Turned on again: a fresh start, whatever turned it off.
    if (edit.active) {
      changes.disabled_reason = null;
      changes.failing_since = null;
      changes.consecutive_timeouts = 0;
      changes.paused_until = null;
    }
  }
  if (Object.keys(changes).length === 0) return toWebhook(row);
  changes.updated_at = clock().toISOString();
  const updated = { ...row, ...changes };
  return change(db, caller, async (tx, record) => {
    await tx.updateTable("webhook").set(changes).where("id", "=", row.id).execute();
    record.audit({
      ...projectOf(project),
      action: "webhook.updated",
      target: updated.url,
      details: { changed: Object.keys(changes).filter((k) => EDITABLE.includes(k)) },
    });
    return toWebhook(updated);
  });
}

export async function deleteWebhook(
  deps: Pick<WebhookUseCaseDeps, "db">,
  caller: PersonCaller,
  input: { project: string; id: string },
): Promise<void> {
  const { db } = deps;
  const project = await requireOwnProject(db, caller.actor, input.project, WEBHOOK_MANAGE_ACCESS);
  const row = await webhookRow(db, project, input.id);
  await change(db, caller, async (tx, record) => {
    await tx.deleteFrom("webhook").where("id", "=", row.id).execute();
    record.audit({ ...projectOf(project), action: "webhook.deleted", target: row.url, details: {} });
  });
}

/** A new secret signs every delivery from now on, retries of earlier ones included. */
export async function rotateWebhookSecret(
  deps: WebhookUseCaseDeps,
  caller: PersonCaller,
  input: { project: string; id: string },
): Promise<WebhookWithSecret> {
  const { db, clock, webhooks } = deps;
  const project = await requireOwnProject(db, caller.actor, input.project, WEBHOOK_MANAGE_ACCESS);
  const row = await webhookRow(db, project, input.id);
  const secret = newWebhookSecret();
  const updated = { ...row, secret: webhooks.sealSecret(row.id, secret), updated_at: clock().toISOString() };
  return change(db, caller, async (tx, record) => {
    await tx
      .updateTable("webhook")
      .set({ secret: updated.secret, updated_at: updated.updated_at })
      .where("id", "=", row.id)
      .execute();
    record.audit({ ...projectOf(project), action: "webhook.secret_rotated", target: row.url, details: {} });
    return { ...toWebhook(updated), secret };
  });
}

export interface DisabledWebhook {
  url: string;
  projectId: string;
  slug: string;
  ownerId: string;
  /** The owner's username (a person's or an organization's). */
  username: string | null;
}

/**
 * The delivery worker's change: a webhook failing since `failingSince` is turned off and its
 * waiting deliveries given up. Answers the webhook, or null when it was already off (another
 * server turned it off first) or is gone.
 */
export async function disableFailingWebhook(
  deps: Pick<WebhookUseCaseDeps, "db" | "clock">,
  input: { webhookId: string; failingSince: string },
): Promise<DisabledWebhook | null> {
  const { db, clock } = deps;
  return change(db, SYSTEM, async (tx, record) => {
    const now = clock().toISOString();
    const turnedOff = await tx
      .updateTable("webhook")
      .set({ active: 0, disabled_reason: "failing", updated_at: now })
      .where("id", "=", input.webhookId)
      .where("active", "=", 1)
      .executeTakeFirst();
    if (Number(turnedOff.numUpdatedRows) === 0) return null;
    await tx
      .updateTable("webhook_delivery")
      .set({ state: "failed", next_attempt_at: null, finished_at: now })
      .where("webhook_id", "=", input.webhookId)
      .where("state", "=", "pending")
      .execute();
    const hook = await tx
      .selectFrom("webhook")
      .innerJoin("project", "project.id", "webhook.project_id")
      .innerJoin("user", "user.id", "project.owner_id")
      .select(["webhook.url", "project.id as projectId", "project.slug", "project.owner_id", "user.username"])
      .where("webhook.id", "=", input.webhookId)
      .executeTakeFirst();
    if (!hook) return null;
    record.audit({
      ownerId: hook.owner_id,
      projectId: hook.projectId,
      projectSlug: hook.slug,
      action: "webhook.disabled",
      target: hook.url,
      details: { failingSince: input.failingSince },
    });
    return {
      url: hook.url,
      projectId: hook.projectId,
      slug: hook.slug,
      ownerId: hook.owner_id,
      username: hook.username,
    };
  });
}
