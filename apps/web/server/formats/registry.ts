// The package formats Packyard serves (decision 075). Adding one is a folder beside apt/ and
// yum/, one line here, and a migration for its package table (docs/formats.md).

import type { Kysely } from "kysely";
import type { Database } from "../platform/db/schema.ts";
import type { JobQueue } from "../platform/jobs/queue.ts";
import type { SigningKeyService } from "../signing-keys/keys.ts";
import { aptFormat } from "./apt/format.ts";
import type { PackageFormat } from "./format.ts";
import { yumFormat } from "./yum/format.ts";

export const formats: readonly PackageFormat[] = [aptFormat, yumFormat];

/** Where an upload's packages go: each format's parsed target, by format id. */
export type UploadTargets = Partial<Record<PackageFormat["id"], unknown>>;

/**
 * Every format's target from an upload's fields (query or form), each checked: a bad field is
 * refused whatever the file (the formats in registry order, so APT's error comes first).
 */
export function parseUploadTargets(field: (name: string) => string | undefined): UploadTargets {
  return Object.fromEntries(formats.map((format) => [format.id, format.parseTarget(field)]));
}

/** After a key rotation: queues the re-signing of every format's files that need it (decision 030). */
export function resignQueue(jobs: Pick<JobQueue, "send">): (projectId: string) => Promise<void> {
  return async (projectId) => {
    for (const format of formats) await format.resign?.queue(jobs, projectId);
  };
}

/** Projects with a stored file their newest key did not sign, in any format. */
export async function projectsWithStaleSignatures(db: Kysely<Database>): Promise<string[]> {
  const projects = new Set<string>();
  for (const format of formats)
    for (const id of (await format.resign?.staleProjects(db)) ?? []) projects.add(id);
  return [...projects];
}

/**
 * The public keys gpg.key serves, oldest first: those that sign now, and any a format's served
 * files still carry the signature of (decision 030).
 */
export async function verifyingKeys(
  deps: { db: Kysely<Database>; keys: Pick<SigningKeyService, "newest" | "active" | "all"> },
  project: { id: string; name: string },
) {
  const { rows } = await deps.keys.active(project);
  const served = new Set(rows.map((row) => row.fingerprint));
  for (const format of formats)
    for (const fingerprint of (await format.resign?.keysStillServed(deps, project)) ?? [])
      served.add(fingerprint);
  return (await deps.keys.all(project.id)).filter((key) => served.has(key.fingerprint));
}

/** The format an upload of this name is a package of; undefined: a plain release file. */
export function formatOfFile(filename: string): PackageFormat | undefined {
  return formats.find((format) => format.recognises(filename));
}

/** The format of a release file's kind (release_file.kind); undefined: not a package. */
export function formatOfKind(kind: string): PackageFormat | undefined {
  return formats.find((format) => format.fileKind === kind);
}

/** The format served under /dl/{user}/{project}/{prefix}/. */
export function formatOfRoute(prefix: string): PackageFormat | undefined {
  return formats.find((format) => format.routePrefix === prefix);
}
