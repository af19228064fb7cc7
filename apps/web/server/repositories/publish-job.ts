// Index builds as jobs. The server that takes a change (an upload, a delete, a yank) publishes
// the project at once in-process, so the client's response means "installable now"; before
// that it queues this job, deferred and one per project, as the guarantee: if that server dies
// between committing the change and serving the new index, another server's worker finds the
// project behind its change log and publishes it. When the first server succeeded, the job
// finds nothing to do (decision 023).
import type { JobDefinition } from "../platform/jobs/queue.ts";
import type { RepositoryPublisher } from "./publisher.ts";

export const PUBLISH_JOB = "publish-repositories";
/** How long the queued publish waits before checking: the in-process build's head start. */
export const PUBLISH_CHECK_DELAY_SECONDS = 15;

export function publishJob(
  repos: Pick<RepositoryPublisher, "publishIfBehind">,
): JobDefinition<{ projectId: string }> {
  return {
    name: PUBLISH_JOB,
    run: async ({ projectId }) => {
      await repos.publishIfBehind(projectId);
    },
    retryLimit: 10,
    retryDelaySeconds: 5,
    retryDelayMaxSeconds: 600,
    expireInSeconds: 600,
    coalesceByKey: true,
    concurrency: 2,
  };
}
