// Webhooks of a project (docs/webhooks.md, decision 032): subscriptions, and the deliveries
// made for them. An event (platform/core/changes.ts activity) becomes one delivery row per subscribed
// webhook, with the JSON body as it will be sent; each attempt is a job (webhook-delivery) that
// claims the row, POSTs it signed (signature.ts) to a checked address (address-guard.ts) and
// records the attempt. A failed attempt is retried with exponential backoff for 24 hours; a
// webhook whose deliveries have all failed for 3 days is turned off and its owner mailed. A
// sweep every minute runs what is due and not queued (a restart of the embedded mode, whose
// queue is in memory).
//
// Fairness (decision 059): a webhook has one attempt in flight at a time, on any server (the
// others wait, due, and the attempt that ends takes the next one); a server makes at most
// WEBHOOK_CONCURRENCY attempts at once, a quarter of them at most for one project, handed out
// in turn (fair-limiter.ts); the job only starts that and ends, so no queue worker waits on a
// receiver. A webhook whose receiver did not answer 5 times in a row is paused: its deliveries
// wait a minute, doubling with each further attempt that gets no answer (at most an hour);
// any answer closes it again.

import {
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_EVENT_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  type Webhook,
  type WebhookDelivery,
} from "@packyard/contract";
import { decryptPrivateKey, encryptPrivateKey } from "@packyard/formats/openpgp/index.ts";
import type { Kysely, Selectable } from "kysely";
import type { Clock } from "../accounts/usernames.ts";
import { servingCachesOf } from "../downloads/serve-cache.ts";
import { isOrganization, ownerRecipients } from "../orgs/storage.ts";
import { type ActivityEvent, onActivity } from "../platform/core/changes.ts";
import { DomainError, notFound } from "../platform/core/errors.ts";
import { newRowId } from "../platform/core/ids.ts";
import type { Database, WebhookDeliveryTable, WebhookTable } from "../platform/db/schema.ts";
import type { JobDefinition, JobQueue } from "../platform/jobs/queue.ts";
import type { Mailer } from "../platform/mail/mailer.ts";
import { webhookDisabledMail } from "../platform/mail/templates.ts";
import type { Logger } from "../platform/observability/logger.ts";
import { releaseUrls } from "../releases/storage.ts";
import { ForbiddenAddressError, resolvePublicAddresses } from "./address-guard.ts";
import { type AttemptResult, postWebhook, WEBHOOK_TIMEOUT_MS } from "./deliver.ts";
import { FairLimiter } from "./fair-limiter.ts";
import { signatureHeader } from "./signature.ts";
import { disableFailingWebhook, toWebhook, webhookRow } from "./use-cases.ts";

export const WEBHOOK_DELIVERY_JOB = "webhook-delivery";
export const WEBHOOK_SWEEP_JOB = "webhook-sweep";
/** How long a delivery is retried. */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** How long every delivery of a webhook may fail before it is turned off. */
export const DISABLE_AFTER_MS = 3 * 24 * 60 * 60 * 1000;
/** A claimed attempt not finished after this long (its server died) is due again. */
const CLAIM_EXPIRES_MS = 2 * 60 * 1000;
/** Deliveries are kept this long for the log. */
export const DELIVERY_RETENTION_DAYS = 30;
export { MAX_WEBHOOKS_PER_PROJECT } from "./use-cases.ts";

/** Attempts in a row without an answer (timeouts, refused connections) that pause a webhook. */
export const PAUSE_AFTER_TIMEOUTS = 5;
/** Attempts one server makes at once, unless WEBHOOK_CONCURRENCY says otherwise. */
export const DEFAULT_WEBHOOK_CONCURRENCY = 16;

/** The pause after `timeouts` attempts in a row without an answer: 1 minute, doubling, at most 1 hour. */
export function pauseMs(timeouts: number): number {
  return Math.min(60_000 * 2 ** Math.max(0, timeouts - PAUSE_AFTER_TIMEOUTS), 60 * 60 * 1000);
}

/** The wait after `attempts` failed attempts: 30 s, doubling, at most 4 hours. */
export function backoffMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 4 * 60 * 60 * 1000);
}

type Db = Kysely<Database>;
type WebhookRow = Selectable<WebhookTable>;
type DeliveryRow = Selectable<WebhookDeliveryTable>;
type ProjectRef = { id: string; owner_id: string };

export interface WebhookDeps {
  db: Db;
  jobs: JobQueue;
  clock: Clock;
  logger: Logger;
  /** Mail to an owner whose webhook was turned off. */
  mailer: Mailer;
  serverSecret: string;
  baseUrl: string;
  /** WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  /** WEBHOOK_TIMEOUT_SECONDS, in milliseconds. */
  timeoutMs?: number;
  /** WEBHOOK_CONCURRENCY: attempts this server makes at once. */
  concurrency?: number;
}

const sealContext = (id: string) => ({ context: `packyard webhook secret ${id}` });

export class WebhookService {
  readonly #deps: WebhookDeps;
  readonly #inflight = new Set<Promise<unknown>>();
  readonly #slots: FairLimiter;
  /** Webhooks whose attempts this server is making (one at a time each). */
  readonly #draining = new Set<string>();
  #stopped = false;

  constructor(deps: WebhookDeps) {
    this.#deps = deps;
    const total = deps.concurrency ?? DEFAULT_WEBHOOK_CONCURRENCY;
    this.#slots = new FairLimiter(total, Math.ceil(total / 4));
  }

  /** Registers the delivery job, the sweep, and the listener that turns activity into deliveries. */
  install(): void {
    const { jobs, db } = this.#deps;
    jobs.define(this.#deliveryJob());
    jobs.define({
      name: WEBHOOK_SWEEP_JOB,
      run: () => this.runDue().then(() => this.pruneDeliveries()),
      retryLimit: 0,
      retryDelaySeconds: 60,
      retryDelayMaxSeconds: 60,
      expireInSeconds: 15 * 60,
      coalesceByKey: true,
    });
    jobs.schedule(WEBHOOK_SWEEP_JOB, 1);
    onActivity(db, (event) =>
      this.enqueue(event).catch((error: unknown) => {
        this.#deps.logger.error(`queueing webhook deliveries for ${event.type} failed`, error);
      }),
    );
  }

  #deliveryJob(): JobDefinition<{ deliveryId: string }> {
    return {
      name: WEBHOOK_DELIVERY_JOB,
      run: ({ deliveryId }) => this.kick(deliveryId),
      // Retries are the delivery's own (backoff recorded in its row), not the queue's.
      retryLimit: 0,
      retryDelaySeconds: 30,
      retryDelayMaxSeconds: 30,
      expireInSeconds: 120,
      concurrency: 4,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Subscriptions.

  async list(project: ProjectRef): Promise<Webhook[]> {
    const rows = await this.#deps.db
      .selectFrom("webhook")
      .selectAll()
      .where("project_id", "=", project.id)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map(toWebhook);
  }

  #row(project: ProjectRef, id: string): Promise<WebhookRow> {
    return webhookRow(this.#deps.db, project, id);
  }

  async get(project: ProjectRef, id: string): Promise<Webhook> {
    return toWebhook(await this.#row(project, id));
  }

  /** Refuses a URL whose host is, or resolves to, an address webhooks may not reach. */
  async assertAllowedUrl(url: string): Promise<void> {
    if (this.#deps.allowPrivate) return;
    const host = new URL(url).hostname;
    try {
      await resolvePublicAddresses(host);
    } catch (error) {
      if (error instanceof ForbiddenAddressError)
        throw new DomainError(
          "WEBHOOK_URL_FORBIDDEN",
          `Webhooks cannot be sent to ${host}: ${error.message}. Use a public address.`,
          { url: error.message },
        );
      throw new DomainError("VALIDATION_FAILED", `${host} could not be resolved`, {
        url: `${host} could not be resolved`,
      });
    }
  }

  /** A webhook's secret as its row keeps it: sealed with the server secret. */
  sealSecret(id: string, secret: string): string {
    return encryptPrivateKey(secret, this.#deps.serverSecret, sealContext(id));
  }

  #unseal(row: Pick<WebhookRow, "id" | "secret">): string {
    return decryptPrivateKey(row.secret, this.#deps.serverSecret, sealContext(row.id));
  }

  // -------------------------------------------------------------------------------------------
  // Deliveries.

  /** The webhook's latest deliveries, newest first, each with its attempts. */
  async deliveries(project: ProjectRef, id: string, limit = 50): Promise<WebhookDelivery[]> {
    const { db } = this.#deps;
    const row = await this.#row(project, id);
    const rows = await db
      .selectFrom("webhook_delivery")
      .selectAll()
      .where("webhook_id", "=", row.id)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    return this.#describe(rows);
  }

  async #describe(rows: DeliveryRow[]): Promise<WebhookDelivery[]> {
    if (rows.length === 0) return [];
    const attempts = await this.#deps.db
      .selectFrom("webhook_attempt")
      .selectAll()
      .where(
        "delivery_id",
        "in",
        rows.map((r) => r.id),
      )
      .orderBy("attempted_at")
      .orderBy("id")
      .execute();
    return rows.map((r) => ({
      id: r.id,
      event: r.event as WebhookDelivery["event"],
      state: r.state,
      createdAt: r.created_at,
      nextAttemptAt: r.state === "pending" ? r.next_attempt_at : null,
      redeliveryOf: r.redelivery_of,
      payload: JSON.parse(r.body) as Record<string, unknown>,
      attempts: attempts
        .filter((a) => a.delivery_id === r.id)
        .map((a) => ({
          at: a.attempted_at,
          status: a.status === null ? null : Number(a.status),
          durationMs: Number(a.duration_ms),
          responseExcerpt: a.response_excerpt,
          error: a.error,
        })),
    }));
  }

  async #delivery(id: string): Promise<WebhookDelivery> {
    const row = await this.#deps.db
      .selectFrom("webhook_delivery")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    const [described] = await this.#describe([row]);
    return described!;
  }

  /** Sends a `ping` now and answers with how it went (a failure is retried like any delivery). */
  async test(project: ProjectRef, id: string): Promise<WebhookDelivery> {
    const row = await this.#row(project, id);
    const payload = await this.#envelope(project.id, "ping", {
      webhook: { id: row.id, events: JSON.parse(row.events) },
    });
    if (!payload) throw notFound("Project not found");
    const deliveryId = await this.#insertDelivery(row.id, "ping", JSON.stringify(payload), null);
    await this.attempt(deliveryId, project.id);
    return this.#delivery(deliveryId);
  }

  /** Sends a delivery's body again as a new delivery (same event id), now. */
  async redeliver(project: ProjectRef, id: string, deliveryId: string): Promise<WebhookDelivery> {
    const row = await this.#row(project, id);
    const original = await this.#deps.db
      .selectFrom("webhook_delivery")
      .selectAll()
      .where("id", "=", deliveryId)
      .where("webhook_id", "=", row.id)
      .executeTakeFirst();
    if (!original) throw notFound("Delivery not found");
    const newId = await this.#insertDelivery(row.id, original.event, original.body, original.id);
    await this.attempt(newId, project.id);
    return this.#delivery(newId);
  }

  async #insertDelivery(
    webhookId: string,
    event: string,
    body: string,
    redeliveryOf: string | null,
  ): Promise<string> {
    const id = newRowId();
    const now = this.#deps.clock().toISOString();
    await this.#deps.db
      .insertInto("webhook_delivery")
      .values({
        id,
        webhook_id: webhookId,
        event,
        body,
        state: "pending",
        attempts: 0,
        next_attempt_at: now,
        claimed_at: null,
        redelivery_of: redeliveryOf,
        created_at: now,
        finished_at: null,
      })
      .execute();
    return id;
  }

  /** One delivery per active webhook of the project subscribed to the event, queued. */
  async enqueue(event: ActivityEvent): Promise<void> {
    const { db, jobs } = this.#deps;
    // Through the rows cache, which every change drops before its events are heard: the events
    // of one change (release.created, file.uploaded) ask the database once (issue 44).
    const active = await servingCachesOf(db).rows.get(`webhooks\u0000${event.projectId}`, () =>
      db
        .selectFrom("webhook")
        .select(["id", "events"])
        .where("project_id", "=", event.projectId)
        .where("active", "=", 1)
        .execute(),
    );
    const hooks = active.filter((h) => (JSON.parse(h.events) as string[]).includes(event.type));
    if (hooks.length === 0) return;
    const payload = await this.#payload(event);
    if (!payload) return;
    const body = JSON.stringify(payload);
    for (const hook of hooks) {
      const deliveryId = await this.#insertDelivery(hook.id, event.type, body, null);
      await jobs.send(WEBHOOK_DELIVERY_JOB, { deliveryId });
    }
  }

  async #payload(event: ActivityEvent): Promise<Record<string, unknown> | undefined> {
    const { db } = this.#deps;
    switch (event.type) {
      case "release.created":
      case "release.yanked":
      case "release.unyanked": {
        const release = await this.#release(event.projectId, event.releaseId);
        return release && this.#envelope(event.projectId, event.type, { release });
      }
      case "file.uploaded": {
        const release = await this.#release(event.projectId, event.releaseId);
        const file = await db
          .selectFrom("release_file")
          .select(["filename", "size", "sha256", "kind"])
          .where("id", "=", event.fileId)
          .executeTakeFirst();
        const project = await this.#project(event.projectId);
        if (!release || !file || !project) return undefined;
        const urls = releaseUrls(this.#deps.baseUrl, project.owner, project.slug);
        return this.#envelope(event.projectId, event.type, {
          release,
          file: {
            filename: file.filename,
            size: Number(file.size),
            sha256: file.sha256,
            kind: file.kind,
            url: urls.fileUrl(release.version, file.filename),
          },
        });
      }
      case "file.deleted": {
        const release = await this.#release(event.projectId, event.releaseId);
        return release && this.#envelope(event.projectId, event.type, { release, file: event.file });
      }
      case "repository.published": {
        let sinceChangeMs: number | null = null;
        if (event.revision > event.previousRevision) {
          const { oldest } = await db
            .selectFrom("package_index_change")
            .select((eb) => eb.fn.min("changed_at").as("oldest"))
            .where("project_id", "=", event.projectId)
            .where("revision", ">", event.previousRevision)
            .where("revision", "<=", event.revision)
            .executeTakeFirstOrThrow();
          if (oldest) sinceChangeMs = Math.max(0, Date.now() - Date.parse(String(oldest)));
        }
        return this.#envelope(event.projectId, event.type, {
          revision: event.revision,
          repositories: event.repositories,
          sinceChangeMs,
        });
      }
      case "image.pushed":
      case "image.deleted": {
        const { type, projectId, name, ...rest } = event;
        const image = `${new URL(this.#deps.baseUrl).host}/${name}`;
        return this.#envelope(projectId, type, { image, ...rest });
      }
      case "key.rotated": {
        const project = await this.#project(event.projectId);
        if (!project) return undefined;
        return this.#envelope(event.projectId, event.type, {
          fingerprint: event.fingerprint,
          previous: event.previous,
          keyringUrl: `${this.#deps.baseUrl}/dl/${project.owner}/${project.slug}/gpg.key`,
        });
      }
    }
  }

  async #project(projectId: string) {
    const row = await this.#deps.db
      .selectFrom("project")
      .innerJoin("user", "user.id", "project.owner_id")
      .select(["project.id", "project.slug", "user.username"])
      .where("project.id", "=", projectId)
      .executeTakeFirst();
    if (!row) return undefined;
    const owner = row.username ?? "";
    return {
      id: row.id,
      slug: row.slug,
      owner,
      url: `${this.#deps.baseUrl}/releases/${owner}/${row.slug}`,
    };
  }

  async #release(projectId: string, releaseId: string) {
    const project = await this.#project(projectId);
    const row = await this.#deps.db
      .selectFrom("release")
      .select(["id", "version", "title", "yanked", "yanked_reason"])
      .where("id", "=", releaseId)
      .executeTakeFirst();
    if (!project || !row) return undefined;
    return {
      id: row.id,
      version: row.version,
      title: row.title,
      yanked: Boolean(Number(row.yanked)),
      yankedReason: row.yanked_reason,
      url: `${project.url}/${encodeURIComponent(row.version)}`,
    };
  }

  async #envelope(projectId: string, event: string, data: Record<string, unknown>) {
    const project = await this.#project(projectId);
    if (!project) return undefined;
    return {
      id: `evt_${newRowId()}`,
      event,
      createdAt: this.#deps.clock().toISOString(),
      project,
      data,
    };
  }

  // -------------------------------------------------------------------------------------------
  // Attempts.

  /**
   * Makes the delivery's next attempt now if it is due and nobody else is making it, whatever
   * the webhook's pause: a test ping or a redelivery its owner asked for (in a slot like any).
   */
  attempt(deliveryId: string, projectId: string): Promise<void> {
    return this.#track(
      this.#slots.acquire(projectId).then(async (release) => {
        try {
          await this.#attempt(deliveryId);
        } finally {
          release();
        }
      }),
    );
  }

  #track<T>(running: Promise<T>): Promise<T> {
    this.#inflight.add(running);
    return running.finally(() => this.#inflight.delete(running));
  }

  /** Resolves once no attempt is in flight (tests wait for the one a request started). */
  async settled(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
  }

  /** Starts no further attempt and waits for those in flight (the server is stopping). */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.settled();
  }

  /**
   * The delivery job: starts the attempts of the delivery's webhook unless they are under way,
   * without waiting for them, so that no queue worker waits on a receiver that hangs.
   */
  async kick(deliveryId: string): Promise<void> {
    const row = await this.#deps.db
      .selectFrom("webhook_delivery")
      .innerJoin("webhook", "webhook.id", "webhook_delivery.webhook_id")
      .select(["webhook.id as webhookId", "webhook.project_id as projectId"])
      .where("webhook_delivery.id", "=", deliveryId)
      .executeTakeFirst();
    if (row) void this.#drain(row.webhookId, row.projectId, deliveryId);
  }

  /**
   * Makes the webhook's due attempts one at a time until none is due: `first` (a new delivery)
   * first, then the oldest.
   */
  #drain(webhookId: string, projectId: string, first?: string): Promise<void> {
    if (this.#stopped || this.#draining.has(webhookId)) return Promise.resolve();
    this.#draining.add(webhookId);
    return this.#track(
      this.#drainLoop(webhookId, projectId, first)
        .catch((error: unknown) => {
          this.#deps.logger.error(`webhook ${webhookId}: delivering failed`, error);
          return "stopped" as const;
        })
        .then(async (outcome) => {
          this.#draining.delete(webhookId);
          if (outcome !== "done" || this.#stopped) return;
          // A delivery that came due while this ran was left to it (its job saw it busy).
          const due = await this.#nextDue(webhookId).catch(() => undefined);
          if (due) await this.#drain(webhookId, projectId);
        }),
    );
  }

  async #drainLoop(webhookId: string, projectId: string, first?: string): Promise<"done" | "stopped"> {
    const { db, clock } = this.#deps;
    let previous: string | undefined;
    while (!this.#stopped) {
      // One attempt in flight per webhook, across servers: the claim of the webhook's row.
      const now = clock();
      const claim = now.toISOString();
      const claimed = await db
        .updateTable("webhook")
        .set({ attempt_claimed_at: claim })
        .where("id", "=", webhookId)
        .where((eb) =>
          eb.or([
            eb("attempt_claimed_at", "is", null),
            eb("attempt_claimed_at", "<", new Date(now.getTime() - CLAIM_EXPIRES_MS).toISOString()),
          ]),
        )
        .executeTakeFirst();
      // Another server is making its attempts (and takes the next one when it is done).
      if (Number(claimed.numUpdatedRows) === 0) return "stopped";
      try {
        const hook = await db
          .selectFrom("webhook")
          .select("paused_until")
          .where("id", "=", webhookId)
          .executeTakeFirst();
        if (!hook) return "stopped";
        if (hook.paused_until && hook.paused_until > claim) {
          await this.#deferTo(webhookId, hook.paused_until);
          return "stopped";
        }
        const next = previous === undefined && first ? first : await this.#nextDue(webhookId);
        if (!next) return "done";
        // The same one again: its attempt did not take it (another server did, or the clock
        // moved). Left to the sweep rather than tried in a loop.
        if (next === previous) return "stopped";
        previous = next;
        const release = await this.#slots.acquire(projectId);
        try {
          await this.#attempt(next);
        } finally {
          release();
        }
      } finally {
        await db
          .updateTable("webhook")
          .set({ attempt_claimed_at: null })
          .where("id", "=", webhookId)
          .where("attempt_claimed_at", "=", claim)
          .execute();
      }
    }
    return "stopped";
  }

  /** The webhook's oldest delivery that is due. */
  async #nextDue(webhookId: string): Promise<string | undefined> {
    const now = this.#deps.clock();
    const nowIso = now.toISOString();
    const staleClaim = new Date(now.getTime() - CLAIM_EXPIRES_MS).toISOString();
    const row = await this.#deps.db
      .selectFrom("webhook_delivery")
      .select("id")
      .where("webhook_id", "=", webhookId)
      .where((eb) =>
        eb.or([
          eb.and([eb("state", "=", "pending"), eb("next_attempt_at", "<=", nowIso)]),
          eb.and([eb("state", "=", "sending"), eb("claimed_at", "<", staleClaim)]),
        ]),
      )
      .orderBy("next_attempt_at")
      .orderBy("created_at")
      .orderBy("id")
      .limit(1)
      .executeTakeFirst();
    return row?.id;
  }

  /** The webhook's waiting deliveries wait until its pause ends (their log says when). */
  async #deferTo(webhookId: string, pausedUntil: string) {
    await this.#deps.db
      .updateTable("webhook_delivery")
      .set({ next_attempt_at: pausedUntil })
      .where("webhook_id", "=", webhookId)
      .where("state", "=", "pending")
      .where("next_attempt_at", "<", pausedUntil)
      .execute();
  }

  async #attempt(deliveryId: string): Promise<void> {
    const { db, clock } = this.#deps;
    const now = clock();
    const nowIso = now.toISOString();
    const staleClaim = new Date(now.getTime() - CLAIM_EXPIRES_MS).toISOString();
    const claimed = await db
      .updateTable("webhook_delivery")
      .set({ state: "sending", claimed_at: nowIso })
      .where("id", "=", deliveryId)
      .where((eb) =>
        eb.or([
          eb.and([eb("state", "=", "pending"), eb("next_attempt_at", "<=", nowIso)]),
          eb.and([eb("state", "=", "sending"), eb("claimed_at", "<", staleClaim)]),
        ]),
      )
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 0) return;
    const delivery = await db
      .selectFrom("webhook_delivery")
      .innerJoin("webhook", "webhook.id", "webhook_delivery.webhook_id")
      .select([
        "webhook_delivery.id",
        "webhook_delivery.event",
        "webhook_delivery.body",
        "webhook_delivery.attempts",
        "webhook_delivery.created_at",
        "webhook.id as webhookId",
        "webhook.url",
        "webhook.secret",
        "webhook.active",
        "webhook.failing_since",
        "webhook.project_id as projectId",
        "webhook.consecutive_timeouts",
        "webhook.paused_until",
      ])
      .where("webhook_delivery.id", "=", deliveryId)
      .executeTakeFirst();
    if (!delivery) return;
    // A webhook that is off gets nothing but the test pings its owner sends to check it.
    if (!Number(delivery.active) && delivery.event !== "ping") {
      await this.#finish(deliveryId, "failed");
      return;
    }
    const secret = this.#unseal({ id: delivery.webhookId, secret: delivery.secret });
    const result = await postWebhook({
      url: delivery.url,
      body: delivery.body,
      headers: {
        "user-agent": "Packyard-Webhook/1",
        [WEBHOOK_EVENT_HEADER]: delivery.event,
        [WEBHOOK_DELIVERY_HEADER]: delivery.id,
        [WEBHOOK_SIGNATURE_HEADER]: signatureHeader(secret, Math.floor(now.getTime() / 1000), delivery.body),
      },
      allowPrivate: this.#deps.allowPrivate,
      timeoutMs: this.#deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
    });
    await this.#record(delivery, result, now);
  }

  async #record(
    delivery: {
      id: string;
      attempts: number;
      created_at: string;
      webhookId: string;
      projectId: string;
      failing_since: string | null;
      consecutive_timeouts: number;
      paused_until: string | null;
    },
    result: AttemptResult,
    at: Date,
  ) {
    const { db, jobs } = this.#deps;
    const attempts = Number(delivery.attempts) + 1;
    const pausedUntil = await this.#circuit(delivery, result);
    if (pausedUntil)
      result = {
        ...result,
        error: `${result.error ?? "No answer"} (paused after ${pausedUntil.timeouts} attempts in a row without an answer: next try at ${pausedUntil.at})`,
      };
    await db
      .insertInto("webhook_attempt")
      .values({
        id: newRowId(),
        delivery_id: delivery.id,
        attempted_at: at.toISOString(),
        status: result.status,
        duration_ms: result.durationMs,
        response_excerpt: result.responseExcerpt,
        error: result.error ? result.error.slice(0, 1000) : null,
      })
      .execute();
    if (result.ok) {
      await db
        .updateTable("webhook_delivery")
        .set({ state: "delivered", attempts, next_attempt_at: null, finished_at: at.toISOString() })
        .where("id", "=", delivery.id)
        .execute();
      if (delivery.failing_since)
        await db
          .updateTable("webhook")
          .set({ failing_since: null })
          .where("id", "=", delivery.webhookId)
          .execute();
      return;
    }
    // The failure streak of the webhook: 3 days of nothing but failures turns it off.
    const failingSince = delivery.failing_since ?? at.toISOString();
    if (!delivery.failing_since)
      await db
        .updateTable("webhook")
        .set({ failing_since: failingSince })
        .where("id", "=", delivery.webhookId)
        .where("failing_since", "is", null)
        .execute();
    if (at.getTime() - Date.parse(failingSince) >= DISABLE_AFTER_MS) {
      await db
        .updateTable("webhook_delivery")
        .set({ attempts, state: "failed", next_attempt_at: null, finished_at: at.toISOString() })
        .where("id", "=", delivery.id)
        .execute();
      await this.#disable(delivery.webhookId, failingSince);
      return;
    }
    const wait = Math.max(backoffMs(attempts), pausedUntil ? Date.parse(pausedUntil.at) - at.getTime() : 0);
    const next = at.getTime() + wait;
    if (next > Date.parse(delivery.created_at) + RETRY_WINDOW_MS) {
      await db
        .updateTable("webhook_delivery")
        .set({ attempts, state: "failed", next_attempt_at: null, finished_at: at.toISOString() })
        .where("id", "=", delivery.id)
        .execute();
      return;
    }
    await db
      .updateTable("webhook_delivery")
      .set({ attempts, state: "pending", next_attempt_at: new Date(next).toISOString(), claimed_at: null })
      .where("id", "=", delivery.id)
      .execute();
    await jobs.send(
      WEBHOOK_DELIVERY_JOB,
      { deliveryId: delivery.id },
      { delaySeconds: Math.ceil(wait / 1000) },
    );
  }

  /**
   * Counts an attempt that got no answer and pauses the webhook at the 5th in a row (answering
   * the count and the pause's end when it did); any answer closes the pause, and what waited for
   * it is due at once.
   */
  async #circuit(
    delivery: {
      webhookId: string;
      projectId: string;
      consecutive_timeouts: number;
      paused_until: string | null;
    },
    result: AttemptResult,
  ): Promise<{ timeouts: number; at: string } | undefined> {
    const { db, clock } = this.#deps;
    if (result.status !== null) {
      if (Number(delivery.consecutive_timeouts) === 0 && !delivery.paused_until) return undefined;
      await db
        .updateTable("webhook")
        .set({ consecutive_timeouts: 0, paused_until: null })
        .where("id", "=", delivery.webhookId)
        .execute();
      if (delivery.paused_until) {
        await db
          .updateTable("webhook_delivery")
          .set({ next_attempt_at: clock().toISOString() })
          .where("webhook_id", "=", delivery.webhookId)
          .where("state", "=", "pending")
          .where("next_attempt_at", "=", delivery.paused_until)
          .execute();
        // A test ping closed it: what waited is sent now (inside a drain, that drain goes on).
        void this.#drain(delivery.webhookId, delivery.projectId);
      }
      return undefined;
    }
    const counted = await db
      .updateTable("webhook")
      .set((eb) => ({ consecutive_timeouts: eb("consecutive_timeouts", "+", 1) }))
      .where("id", "=", delivery.webhookId)
      .returning("consecutive_timeouts")
      .executeTakeFirst();
    const timeouts = Number(counted?.consecutive_timeouts ?? 0);
    if (timeouts < PAUSE_AFTER_TIMEOUTS) return undefined;
    const at = new Date(clock().getTime() + pauseMs(timeouts)).toISOString();
    await db.updateTable("webhook").set({ paused_until: at }).where("id", "=", delivery.webhookId).execute();
    await this.#deferTo(delivery.webhookId, at);
    this.#deps.logger.warn(
      `webhook ${delivery.webhookId} paused until ${at}: ${timeouts} attempts in a row without an answer`,
    );
    return { timeouts, at };
  }

  async #finish(deliveryId: string, state: "failed" | "delivered") {
    await this.#deps.db
      .updateTable("webhook_delivery")
      .set({ state, next_attempt_at: null, finished_at: this.#deps.clock().toISOString() })
      .where("id", "=", deliveryId)
      .execute();
  }

  /** Turns a failing webhook off, gives up its waiting deliveries, and tells its owner. */
  async #disable(webhookId: string, failingSince: string) {
    const { db, logger, mailer, baseUrl } = this.#deps;
    const hook = await disableFailingWebhook(this.#deps, { webhookId, failingSince });
    if (!hook) return;
    logger.warn(
      `webhook ${webhookId} of ${hook.username}/${hook.slug} turned off: failing since ${failingSince}`,
    );
    try {
      // The owner hears of it: the person, or an organization's owners (decision 040), whose
      // project pages are under /orgs/{org}/projects.
      const pages = (await isOrganization(db, hook.ownerId))
        ? `/orgs/${hook.username}/projects/${hook.slug}`
        : `/projects/${hook.slug}`;
      for (const owner of await ownerRecipients(db, hook.ownerId))
        await mailer.send(
          webhookDisabledMail(owner.email, owner.name, {
            project: `${hook.username}/${hook.slug}`,
            url: hook.url,
            failingSince,
            settingsUrl: `${baseUrl}${pages}/webhooks`,
          }),
        );
    } catch (error) {
      logger.error(`mailing that webhook ${webhookId} was turned off failed`, error);
    }
  }

  /**
   * Makes the due attempts of every webhook that has one (the sweep; tests call it after moving
   * the clock), each webhook's in turn; answers how many webhooks had one.
   */
  async runDue(limit = 200): Promise<number> {
    const { db, clock } = this.#deps;
    const now = clock();
    const nowIso = now.toISOString();
    const staleClaim = new Date(now.getTime() - CLAIM_EXPIRES_MS).toISOString();
    const due = await db
      .selectFrom("webhook_delivery")
      .innerJoin("webhook", "webhook.id", "webhook_delivery.webhook_id")
      .select(["webhook.id as webhookId", "webhook.project_id as projectId"])
      .distinct()
      .where((eb) =>
        eb.or([
          eb.and([eb("state", "=", "pending"), eb("next_attempt_at", "<=", nowIso)]),
          eb.and([eb("state", "=", "sending"), eb("claimed_at", "<", staleClaim)]),
        ]),
      )
      .limit(limit)
      .execute();
    await Promise.all(due.map((d) => this.#drain(d.webhookId, d.projectId)));
    return due.length;
  }

  /** Deletes finished deliveries older than the retention (the sweep). */
  async pruneDeliveries(): Promise<void> {
    const cutoff = new Date(
      this.#deps.clock().getTime() - DELIVERY_RETENTION_DAYS * 24 * 60 * 60 * 1000,
    ).toISOString();
    await this.#deps.db
      .deleteFrom("webhook_delivery")
      .where("created_at", "<", cutoff)
      .where("state", "in", ["delivered", "failed"])
      .execute();
  }
}
