// What the npm and PyPI registries (formats/npm, formats/pypi) share over HTTP: who may read or
// publish the project a registry URL names, decided where the rest of Packyard decides it
// (dl-answer.ts's dlProject for reads: keys, sessions, entitlement tokens, anonymous on a public
// project; requireOwnProject for writes), the release file behind a package URL answered by the
// one /dl writer (ranges, presigned redirects, counting, entitlement limits), and a failure as
// the status and code the API would answer with, for the registry to word in its own shape.
import { type ApiErrorCode, apiErrorStatus } from "@packyard/contract";
import type { Context } from "hono";
import { dlDeps, dlProject, dlRequestOf, dlResponder } from "../downloads/dl-answer.ts";
import type { PersonCaller } from "../platform/core/use-case.ts";
import { requireActor } from "../platform/http/actor.ts";
import { describeFailure } from "../platform/http/api-errors.ts";
import { clientAddress } from "../platform/http/request-log.ts";
import { type ProjectRow, requireOwnProject } from "../projects/storage.ts";
import type { Services } from "../services.ts";

/** The project a registry URL names: its owner's name and the project's slug. */
export interface RegistryProjectName {
  owner: string;
  slug: string;
}

/**
 * The project, if the request may read it: anonymous on a public project, a key or session
 * that sees it, an entitlement token that reads it (within its dates). Else NOT_FOUND (a
 * private project is not told apart from a missing one) or UNAUTHENTICATED for a bad key.
 */
export function readableProject(
  services: Services,
  c: Context,
  name: RegistryProjectName,
): Promise<ProjectRow> {
  const req = dlRequestOf(c, "release", undefined, { username: name.owner, slug: name.slug });
  return dlProject(dlDeps(services, false), req);
}

/**
 * The caller and project of a registry write: an API key (or a trusted-publishing token) whose
 * account may publish to the project. NOT_FOUND when the caller may not see it, FORBIDDEN when
 * it may read but not publish (a read key), UNAUTHENTICATED without a valid credential.
 */
export async function publishingCaller(
  services: Services,
  c: Context,
  name: RegistryProjectName,
): Promise<{ caller: PersonCaller; project: ProjectRow }> {
  const actor = await requireActor(services, c.req.raw.headers);
  const project = await requireOwnProject(
    services.database.db,
    actor,
    `${name.owner}/${name.slug}`,
    "publish",
  );
  return { caller: { actor, address: clientAddress(c, services.config.trustProxy) }, project };
}

/**
 * Answers a release file (a tarball, a wheel) at a registry's own URL, as /dl would answer
 * /dl/{owner}/{project}/releases/{version}/{filename}: the same access, ranges, redirects and
 * download counting (an npm or pip user agent counts as an install).
 */
export function releaseFileResponder(services: Services) {
  const respond = dlResponder(services);
  return (c: Context, name: RegistryProjectName, version: string, filename: string): Promise<Response> =>
    respond(
      c,
      dlRequestOf(c, "release", undefined, { username: name.owner, slug: name.slug, version, filename }),
    );
}

/** Whether the request carries no credential at all (as /dl decides it: no Authorization, no cookie). */
export function anonymousRequest(c: Context): boolean {
  return !c.req.raw.headers.has("authorization") && !c.req.raw.headers.has("cookie");
}

/**
 * A failure as the API answers it (api-errors.ts's describeFailure): its status, code, message and
 * any Retry-After, for the registry to word in its own shape.
 */
export function registryFailure(
  services: Services,
  error: unknown,
): { status: number; code: ApiErrorCode; message: string; retryAfterSeconds?: number } {
  const failure = describeFailure(error, services.logger);
  return {
    status: apiErrorStatus[failure.code],
    code: failure.code,
    message: failure.message,
    ...(failure.retryAfterSeconds !== undefined ? { retryAfterSeconds: failure.retryAfterSeconds } : {}),
  };
}
