// Everything a request handler needs, built once per process from the config: the database,
// better-auth, mail, the job queue and logging. Route loaders receive it through the router
// context.

import { join } from "node:path";
import { deleteAccount, recordSignIn } from "./accounts/use-cases.ts";
import type { Clock } from "./accounts/usernames.ts";
import { type Auth, authOptions, createAuth } from "./auth/auth.ts";
import { revokeApiKeysAfterReset } from "./auth/password-reset-keys.ts";
import { flushDownloadCounts } from "./billing/usage.ts";
import { formats } from "./formats/registry.ts";
import { importJob, resumeUnfinishedImports } from "./imports/run.ts";
import { defineMaintenanceJobs } from "./maintenance.ts";
import { identityProviderOrigins, organizationOfProvider } from "./orgs/sso.ts";
import { provisionSsoSignIn } from "./orgs/sso-sign-in.ts";
import { accountDeletionBlocker } from "./orgs/storage.ts";
import type { Config } from "./platform/config/config.ts";
import { onActivity, onProjectEvent } from "./platform/core/changes.ts";
import { type DatabaseHandle, openDatabase } from "./platform/db/database.ts";
import { migrateDatabase } from "./platform/db/migrate.ts";
import { closeKeyChecks } from "./platform/http/actor.ts";
import { createJobQueue } from "./platform/jobs/engine.ts";
import type { JobQueue } from "./platform/jobs/queue.ts";
import { createMailer, type Mailer } from "./platform/mail/mailer.ts";
import { mailJob, queuedMailer } from "./platform/mail/queued-mailer.ts";
import { createLogger, type Logger } from "./platform/observability/logger.ts";
import { createMetrics, type Metrics } from "./platform/observability/metrics.ts";
import {
  createErrorReporter,
  type ErrorReporter,
  reportingLogger,
} from "./platform/observability/observability.ts";
import { type BlobStore, createLocalBlobStore } from "./platform/storage/blob-store.ts";
import type { Stores } from "./platform/storage/stores.ts";
import { MemoryBudget } from "./repositories/memory-budget.ts";
import { PUBLISH_CHECK_DELAY_SECONDS, PUBLISH_JOB, publishJob } from "./repositories/publish-job.ts";
import { RepositoryPublisher } from "./repositories/publisher.ts";
import { queueRetention, retentionJob } from "./retention/run.ts";
import { SigningKeyService } from "./signing-keys/keys.ts";
import { WebhookService } from "./webhooks/service.ts";

export interface Services {
  config: Config;
  logger: Logger;
  database: DatabaseHandle;
  auth: Auth;
  /** Mail sent at once; a failed message is queued and retried (platform/mail/queued-mailer.ts). */
  mailer: Mailer;
  /** Mail sent at once, its failure the caller's: for senders with a durable retry of their own. */
  mailTransport: Mailer;
  /** Background jobs: pg-boss on PostgreSQL, in-process on SQLite (platform/jobs/queue.ts). */
  jobs: JobQueue;
  blobs: BlobStore;
  keys: SigningKeyService;
  repos: RepositoryPublisher;
  /** What time it is: signing times, key expiry and the key lifecycle job read it (tests move it). */
  clock: Clock;
  /** Error reporting (Sentry when SENTRY_DSN is set, otherwise a no-op). */
  errors: ErrorReporter;
  /** Prometheus metrics, served at /metrics. */
  metrics: Metrics;
  /** Projects' webhooks and their deliveries (webhooks/service.ts). */
  webhooks: WebhookService;
  close(): Promise<void>;
}

/**
 * platform/storage/stores.ts, imported only when S3_* is set: it loads the AWS SDK, which an embedded
 * server never needs (decision 037). Without S3, the same local stores it makes.
 */
async function openStores(config: Config): Promise<Stores> {
  if (config.s3) return (await import("./platform/storage/stores.ts")).createStores(config);
  return {
    blobs: createLocalBlobStore(config.blobDir),
    indexes: createLocalBlobStore(join(config.dataDir, "indexes")),
    description: "local disk",
    close() {},
  };
}

export async function createServices(
  config: Config,
  overrides: { logger?: Logger; mailer?: Mailer; errors?: ErrorReporter; clock?: Clock } = {},
): Promise<Services> {
  const baseLogger = overrides.logger ?? createLogger(config.logLevel);
  const errors = overrides.errors ?? (await createErrorReporter(config, baseLogger));
  // Every failure logged with its error is also reported (when SENTRY_DSN is set).
  const logger = reportingLogger(baseLogger, errors);
  const database = openDatabase(config.database, (error) =>
    logger.warn(`database connection: ${error.message}`),
  );
  const metrics = createMetrics();
  const jobs = await createJobQueue(config, logger, metrics).catch(async (error: unknown) => {
    await database.close();
    throw error;
  });
  try {
    const mailTransport =
      overrides.mailer ??
      createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, outboxDir: config.outboxDir, logger });
    const mailer = queuedMailer(mailTransport, jobs, logger);
    // Leftovers of a crash are collected by the running server (maintenance.ts).
    // Blobs and index files: the local disk, or the S3 bucket when S3_* is set.
    const stores = await openStores(config);
    const { blobs } = stores;
    const options = authOptions({
      config,
      dialect: database.dialect,
      dbType: database.kind,
      mailer,
      logger,
      async onSignIn(signIn) {
        // A sign-in is never refused for its log entry; a failure to write one is logged.
        try {
          await recordSignIn({ db: database.db }, signIn);
        } catch (error) {
          logger.error(`recording the sign-in of ${signIn.userId} failed`, error);
        }
      },
      deletionBlocker: (userId) => accountDeletionBlocker(database.db, userId),
      onSsoSignIn: (signIn) => provisionSsoSignIn(database.db, signIn),
      organizationOfProvider: (providerId) => organizationOfProvider(database.db, providerId),
      ...(config.webhookAllowPrivate
        ? { privateIdentityProviderOrigins: () => identityProviderOrigins(database.db) }
        : {}),
      async revokeApiKeys(userId, address) {
        await revokeApiKeysAfterReset(database.db, userId, address);
      },
      async deleteUserData(userId) {
        const removed = await deleteAccount({ db: database.db }, userId);
        logger.info(
          `account ${userId} deleted: ${removed.projects} projects, ${removed.blobs} files' bytes, ${removed.apiKeys} API keys`,
        );
      },
    });
    await migrateDatabase(database.db as never, options);
    const auth = createAuth(options);
    const clock = overrides.clock ?? (() => new Date());
    const keys = new SigningKeyService(database.db, config.secret, clock);
    // One budget for what every format remembers between publishes.
    const indexMemory = new MemoryBudget(config.indexCacheBytes);
    const repos = new RepositoryPublisher(
      {
        db: database.db,
        store: stores.indexes,
        keys,
        logger,
        metrics,
        builders: formats.map((format) => format.builder(indexMemory)),
        clock,
      },
      { graceMs: config.aptGraceSeconds * 1000, keepGenerations: 3 },
    );
    metrics.watchPublishQueue(() => repos.queueDepth());
    metrics.watchJobs(() => jobs.depth());
    jobs.define(publishJob(repos));
    jobs.define(mailJob(mailTransport));
    // The formats' own jobs (YUM: the .rpm files re-signed after a rotation, decision 030).
    for (const format of formats)
      for (const job of format.jobs?.({ db: database.db, blobs, keys, repos, logger }) ?? [])
        jobs.define(job);
    // Imports into projects (imports/run.ts): the job reads its settings from the import row.
    jobs.define(importJob({ db: database.db, blobs, keys, config, logger }));
    // Webhooks: activity becomes deliveries, sent by jobs (decision 032).
    const webhooks = new WebhookService({
      db: database.db,
      jobs,
      clock,
      logger,
      mailer,
      serverSecret: config.secret,
      baseUrl: config.baseUrl,
      allowPrivate: config.webhookAllowPrivate,
      timeoutMs: config.webhookTimeoutMs,
      concurrency: config.webhookConcurrency,
    });
    webhooks.install();
    // Retention rules applied after a project's packages change (retention/run.ts, decision 034).
    jobs.define(retentionJob({ db: database.db, clock, logger }));
    onProjectEvent(database.db, async (event) => {
      try {
        const project = await database.db
          .selectFrom("project")
          .select(["id", "name"])
          .where("id", "=", event.projectId)
          .executeTakeFirst();
        if (!project) return;
        if (event.type === "created") await keys.ensure(project, event.keyAlgorithm);
        else {
          // The queued check first, so a crash during the build below leaves it to another server.
          await jobs.send(
            PUBLISH_JOB,
            { projectId: project.id },
            { key: project.id, delaySeconds: PUBLISH_CHECK_DELAY_SECONDS },
          );
          await repos.publish(project.id);
          await queueRetention(database.db, jobs, project.id);
        }
      } catch (error) {
        logger.error(`updating the repositories of project ${event.projectId} failed`, error);
      }
    });
    // A container image pushed: its tags may now be more than the retention rules keep.
    onActivity(database.db, async (event) => {
      if (event.type !== "image.pushed") return;
      try {
        await queueRetention(database.db, jobs, event.projectId);
      } catch (error) {
        logger.error(`queueing retention for project ${event.projectId} failed`, error);
      }
    });
    const services: Services = {
      config,
      logger,
      database,
      auth,
      mailer,
      mailTransport,
      jobs,
      blobs,
      keys,
      repos,
      clock,
      errors,
      metrics,
      webhooks,
      close: async () => {
        // Running jobs finish (or, past the deadline, are left to another server) first.
        await jobs.stop();
        // Webhook attempts run beside the jobs that start them (decision 059).
        await webhooks.stop();
        // Downloaded bytes still in memory (usage.ts) are written before the database closes.
        await flushDownloadCounts(database.db);
        await errors.flush();
        // The index files' spares (decision 049): temporary copies, of no use to another process.
        await repos.close();
        // The API key checks stop listening for key changes (decision 073).
        await closeKeyChecks(services);
        await database.close();
        stores.close();
      },
    };
    // Garbage collection and the lagging-repository check, on a schedule (maintenance.ts).
    defineMaintenanceJobs(jobs, services);
    await jobs.start();
    await resumeUnfinishedImports(database.db, jobs, logger);
    return services;
  } catch (error) {
    await jobs.stop().catch(() => {});
    await database.close();
    throw error;
  }
}
