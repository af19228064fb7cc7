// A project's repositories were published anew: announced for webhooks and every domain
// listener (the serving cache among them). A job's change (caller SYSTEM) that records no
// entry, so it is not a change() of its own: the publisher switches to the new revision in its
// own transaction, retried when files were swept meanwhile, and only the switch that committed
// is announced, once, after it.
import type { ActivityEvent } from "../platform/core/changes.ts";
import { announce, type Db } from "../platform/core/use-case.ts";

export type RepositoryPublished = Extract<ActivityEvent, { type: "repository.published" }>;

export async function announcePublished(db: Db, event: Omit<RepositoryPublished, "type">): Promise<void> {
  await announce(db, { type: "repository.published", ...event });
}
