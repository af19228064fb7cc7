// Outgoing mail with retries: a message is sent at once, as before; when that fails (the SMTP
// server is down, refuses, times out) it becomes a job on the queue and is retried with growing
// delays for about half a day, on any server. The request that caused the mail does not fail.

import type { JobDefinition, JobQueue } from "../jobs/queue.ts";
import type { Logger } from "../observability/logger.ts";
import type { Mailer, MailMessage } from "./mailer.ts";

export const MAIL_JOB = "send-mail";

export function mailJob(transport: Mailer): JobDefinition<MailMessage> {
  return {
    name: MAIL_JOB,
    run: (message) => transport.send(message),
    // 30 s, 1, 2, 4 … minutes, then hourly: 20 retries reach ~14 hours.
    retryLimit: 20,
    retryDelaySeconds: 30,
    retryDelayMaxSeconds: 3600,
    expireInSeconds: 120,
    concurrency: 2,
  };
}

export function queuedMailer(transport: Mailer, jobs: JobQueue, logger: Logger): Mailer {
  return {
    async send(message) {
      try {
        await transport.send(message);
      } catch (error) {
        // Queued, or (the database is unreachable too) the original failure is the caller's.
        await jobs.send(MAIL_JOB, message).catch(() => {
          throw error;
        });
        logger.warn(`mail to ${message.to} failed, queued for retries: ${(error as Error).message}`);
      }
    },
  };
}
