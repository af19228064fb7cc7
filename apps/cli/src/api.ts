// The routes of /api/v1 the CLI uses, each with the contract schema its answer is parsed with.
import { z } from "zod";
import { type ApiClient, apiError, type RequestOptions } from "./api-client.ts";
import {
  apiKeyInfo,
  type CreateApiKeyInput,
  type CreateProjectInput,
  type CreateReleaseInput,
  createdApiKey,
  type EntitlementSummary,
  entitlementSummary,
  entitlementUsageDay,
  type InviteMemberInput,
  me,
  organization,
  orgInvitation,
  orgMember,
  type PromoteInput,
  project,
  promotionResult,
  type RotateKeyInput,
  release,
  releaseFile,
  releaseSummary,
  signingKey,
  type UpdateReleaseInput,
} from "./contract.ts";

const e = encodeURIComponent;
/** A project's API path from its slug or owner/slug (an organization's project: decision 040). */
const projectPath = (ref: string) => `/api/v1/projects/${ref.split("/").map(e).join("/")}`;
const releasePath = (slug: string, version: string) => `${projectPath(slug)}/releases/${e(version)}`;

/** Whose entitlement tokens: a project's (slug or owner/slug) or an organization's. */
export type EntitlementOwner = { project: string } | { org: string };
const entitlementsPath = (owner: EntitlementOwner) =>
  "project" in owner
    ? `${projectPath(owner.project)}/entitlements`
    : `/api/v1/orgs/${e(owner.org)}/entitlements`;
const createdEntitlement = z.object({ entitlement: entitlementSummary, token: z.string() });
const oneEntitlement = z.object({ entitlement: entitlementSummary });

export interface UploadTarget {
  distribution?: string;
  component?: string;
  group?: string;
}

export function packyardApi(client: ApiClient) {
  return {
    client,
    listProjects: async () =>
      (await client.call("GET", "/api/v1/projects", z.object({ projects: z.array(project) }))).projects,
    getProject: async (slug: string) =>
      (await client.call("GET", projectPath(slug), z.object({ project }))).project,
    createProject: async (input: CreateProjectInput) =>
      (await client.call("POST", "/api/v1/projects", z.object({ project }), { json: input })).project,
    /** Not idempotent: a repeated transfer answers VALIDATION_FAILED (it is there already). */
    transferProject: async (ref: string, owner: string) =>
      (
        await client.call("POST", `${projectPath(ref)}/transfer`, z.object({ project }), {
          json: { owner },
        })
      ).project,

    listOrgs: async () =>
      (await client.call("GET", "/api/v1/orgs", z.object({ organizations: z.array(organization) })))
        .organizations,
    createOrg: async (input: { slug: string; name: string }) =>
      (await client.call("POST", "/api/v1/orgs", z.object({ organization }), { json: input })).organization,
    listMembers: async (slug: string) =>
      (await client.call("GET", `/api/v1/orgs/${e(slug)}/members`, z.object({ members: z.array(orgMember) })))
        .members,
    inviteMember: async (slug: string, input: InviteMemberInput) =>
      (
        await client.call(
          "POST",
          `/api/v1/orgs/${e(slug)}/invitations`,
          z.object({ invitation: orgInvitation }),
          {
            json: input,
          },
        )
      ).invitation,

    listReleases: async (slug: string) =>
      (
        await client.call(
          "GET",
          `${projectPath(slug)}/releases`,
          z.object({ releases: z.array(releaseSummary) }),
        )
      ).releases,
    getRelease: async (slug: string, version: string) =>
      (await client.call("GET", releasePath(slug, version), z.object({ release }))).release,
    createRelease: async (slug: string, input: CreateReleaseInput) =>
      (await client.call("POST", `${projectPath(slug)}/releases`, z.object({ release }), { json: input }))
        .release,
    updateRelease: async (slug: string, version: string, input: UpdateReleaseInput) =>
      (await client.call("PATCH", releasePath(slug, version), z.object({ release }), { json: input }))
        .release,
    deleteRelease: (slug: string, version: string) =>
      client.callNoContent("DELETE", releasePath(slug, version)),
    yankRelease: async (slug: string, version: string, reason: string) =>
      (
        await client.call("POST", `${releasePath(slug, version)}/yank`, z.object({ release }), {
          json: { reason },
          idempotent: true,
        })
      ).release,
    unyankRelease: async (slug: string, version: string) =>
      (
        await client.call("POST", `${releasePath(slug, version)}/unyank`, z.object({ release }), {
          idempotent: true,
        })
      ).release,
    /** Not idempotent: a repeated copy answers VERSION_EXISTS, a repeated move PROMOTION_SAME_TARGET. */
    promoteRelease: async (slug: string, version: string, target: PromoteInput) =>
      (
        await client.call(
          "POST",
          `${releasePath(slug, version)}/promote`,
          z.object({ promotion: promotionResult }),
          {
            json: target,
          },
        )
      ).promotion,

    listFiles: async (slug: string, version: string) =>
      (
        await client.call(
          "GET",
          `${releasePath(slug, version)}/files`,
          z.object({ files: z.array(releaseFile) }),
        )
      ).files,
    /** PUT one file, streamed; the answer is the stored file. Creates the release when needed. */
    uploadFile: async (
      slug: string,
      version: string,
      filename: string,
      target: UploadTarget,
      upload: NonNullable<RequestOptions["upload"]>,
    ) =>
      (
        await client.call(
          "PUT",
          `${releasePath(slug, version)}/files/${e(filename)}`,
          z.object({ file: releaseFile }),
          {
            query: { ...target },
            upload,
          },
        )
      ).file,

    /**
     * The first `length` bytes of a stored file, from its download URL with a Range request: one
     * that ends before the file's last byte is not counted as a download.
     */
    readFileStart: async (owner: string, slug: string, version: string, filename: string, length: number) => {
      const path = `/dl/${owner}/${slug}/releases/${e(version)}/${e(filename)}`;
      const response = await client.send("GET", path, { headers: { range: `bytes=0-${length - 1}` } });
      if (!response.ok) throw await apiError(response, "GET", path);
      return new Uint8Array(await response.arrayBuffer()).subarray(0, length);
    },

    me: async () => client.call("GET", "/api/v1/me", me),
    listApiKeys: async () =>
      (await client.call("GET", "/api/v1/keys", z.object({ keys: z.array(apiKeyInfo) }))).keys,
    createApiKey: async (input: Partial<CreateApiKeyInput> & Pick<CreateApiKeyInput, "name" | "access">) =>
      (await client.call("POST", "/api/v1/keys", z.object({ key: createdApiKey }), { json: input })).key,
    deleteApiKey: async (id: string) => {
      await client.call("DELETE", `/api/v1/keys/${e(id)}`, z.unknown());
    },

    listEntitlements: async (owner: EntitlementOwner) =>
      (
        await client.call(
          "GET",
          entitlementsPath(owner),
          z.object({ entitlements: z.array(entitlementSummary) }),
        )
      ).entitlements,
    createEntitlement: async (owner: EntitlementOwner, input: Record<string, unknown>) =>
      client.call("POST", entitlementsPath(owner), createdEntitlement, { json: input }),
    getEntitlement: async (owner: EntitlementOwner, id: string): Promise<EntitlementSummary> =>
      (await client.call("GET", `${entitlementsPath(owner)}/${e(id)}`, oneEntitlement)).entitlement,
    entitlementUsage: async (owner: EntitlementOwner, id: string, days?: number) =>
      client.call(
        "GET",
        `${entitlementsPath(owner)}/${e(id)}/usage${days === undefined ? "" : `?days=${days}`}`,
        z.object({ entitlement: entitlementSummary, days: z.array(entitlementUsageDay) }),
      ),
    updateEntitlement: async (owner: EntitlementOwner, id: string, input: Record<string, unknown>) =>
      (await client.call("PATCH", `${entitlementsPath(owner)}/${e(id)}`, oneEntitlement, { json: input }))
        .entitlement,
    rotateEntitlement: async (owner: EntitlementOwner, id: string, overlapHours?: number) =>
      client.call("POST", `${entitlementsPath(owner)}/${e(id)}/rotate`, createdEntitlement, {
        json: overlapHours === undefined ? {} : { overlapHours },
      }),
    deleteEntitlement: async (owner: EntitlementOwner, id: string) => {
      await client.call("DELETE", `${entitlementsPath(owner)}/${e(id)}`, z.unknown());
    },

    listKeys: async (slug: string) =>
      (await client.call("GET", `${projectPath(slug)}/keys`, z.object({ keys: z.array(signingKey) }))).keys,
    rotateKeys: async (slug: string, input: Partial<RotateKeyInput>) =>
      (
        await client.call(
          "POST",
          `${projectPath(slug)}/keys/rotate`,
          z.object({ keys: z.array(signingKey) }),
          { json: input },
        )
      ).keys,
  };
}

export type PackyardApi = ReturnType<typeof packyardApi>;
