// The OpenAPI 3.1 document of /api/v1 and /api/p, generated from the zod contract so it cannot
// drift from what the server parses. Served at /api/openapi.json.
import {
  apiErrorBody,
  apiErrorStatus,
  apiKeyInfo,
  createApiKeyInput,
  createdApiKey,
  createProjectInput,
  createReleaseInput,
  me,
  project,
  publicProjectResponse,
  publicReleaseResponse,
  release,
  releaseFile,
  releaseSummary,
  rotateKeyInput,
  signingKey,
  updateProjectInput,
  updateReleaseInput,
  usage,
  yankInput,
} from "@packyard/contract";
import { type ZodType, z } from "zod";

const schema = (type: ZodType, io: "input" | "output" = "output") =>
  z.toJSONSchema(type, { io, unrepresentable: "any", target: "draft-2020-12" }) as Record<string, unknown>;

const jsonBody = (type: ZodType) => ({
  required: true,
  content: { "application/json": { schema: schema(type, "input") } },
});
const ok = (description: string, type?: ZodType) => ({
  description,
  ...(type ? { content: { "application/json": { schema: schema(type) } } } : {}),
});
const errors = (...codes: (keyof typeof apiErrorStatus)[]) =>
  Object.fromEntries(
    [...new Set(codes.map((c) => apiErrorStatus[c]))].map((status) => [
      String(status),
      {
        description: codes.filter((c) => apiErrorStatus[c] === status).join(", "),
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
    ]),
  );

const slug = { name: "slug", in: "path", required: true, schema: { type: "string" } };
const version = {
  name: "version",
  in: "path",
  required: true,
  schema: { type: "string" },
  description: "A version, or `latest` when reading",
};
const filename = { name: "filename", in: "path", required: true, schema: { type: "string" } };
const auth = ["UNAUTHENTICATED", "KEY_SCOPE", "NOT_FOUND"] as const;

export function buildOpenApiDocument(baseUrl: string) {
  return {
    openapi: "3.1.0",
    info: {
      title: "Packyard API",
      version: "1",
      description:
        'Projects, releases and files. Authenticate with the session cookie or an API key: `Authorization: Bearer pky_…`. Errors are `{"error":{"code","message"}}`.',
    },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "An API key from /api-keys" },
        session: { type: "apiKey", in: "cookie", name: "better-auth.session_token" },
      },
      schemas: { Error: schema(apiErrorBody) },
    },
    security: [{ apiKey: [] }, { session: [] }],
    paths: {
      "/api/v1/projects": {
        get: {
          summary: "List your projects",
          responses: {
            200: ok("Projects", z.object({ projects: z.array(project) })),
            ...errors("UNAUTHENTICATED"),
          },
        },
        post: {
          summary: "Create a project",
          requestBody: jsonBody(createProjectInput),
          responses: {
            201: ok("Created", z.object({ project })),
            ...errors("VALIDATION_FAILED", "UNAUTHENTICATED", "KEY_SCOPE", "PLAN_LIMIT", "PROJECT_EXISTS"),
          },
        },
      },
      "/api/v1/projects/{slug}": {
        parameters: [slug],
        get: {
          summary: "Get a project",
          responses: { 200: ok("Project", z.object({ project })), ...errors(...auth) },
        },
        patch: {
          summary: "Update a project",
          requestBody: jsonBody(updateProjectInput),
          responses: {
            200: ok("Updated", z.object({ project })),
            ...errors("VALIDATION_FAILED", ...auth, "PLAN_LIMIT"),
          },
        },
        delete: {
          summary: "Delete a project, its releases and files",
          responses: { 204: ok("Deleted"), ...errors(...auth) },
        },
      },
      "/api/v1/projects/{slug}/releases": {
        parameters: [slug],
        get: {
          summary: "List releases, newest first",
          responses: {
            200: ok("Releases", z.object({ releases: z.array(releaseSummary) })),
            ...errors(...auth),
          },
        },
        post: {
          summary: "Create a release",
          requestBody: jsonBody(createReleaseInput),
          responses: {
            201: ok("Created", z.object({ release })),
            ...errors("VALIDATION_FAILED", ...auth, "VERSION_EXISTS"),
          },
        },
      },
      "/api/v1/projects/{slug}/releases/{version}": {
        parameters: [slug, version],
        get: {
          summary: "Get a release with its files",
          responses: { 200: ok("Release", z.object({ release })), ...errors(...auth) },
        },
        patch: {
          summary: "Update title and notes",
          requestBody: jsonBody(updateReleaseInput),
          responses: { 200: ok("Updated", z.object({ release })), ...errors("VALIDATION_FAILED", ...auth) },
        },
        delete: {
          summary: "Delete a release and its files",
          responses: { 204: ok("Deleted"), ...errors(...auth) },
        },
      },
      "/api/v1/projects/{slug}/releases/{version}/yank": {
        parameters: [slug, version],
        post: {
          summary: "Yank: hide from latest and repositories; files stay downloadable",
          requestBody: jsonBody(yankInput),
          responses: { 200: ok("Yanked", z.object({ release })), ...errors("VALIDATION_FAILED", ...auth) },
        },
      },
      "/api/v1/projects/{slug}/releases/{version}/unyank": {
        parameters: [slug, version],
        post: {
          summary: "Undo a yank",
          responses: { 200: ok("Restored", z.object({ release })), ...errors(...auth) },
        },
      },
      "/api/v1/projects/{slug}/releases/{version}/files": {
        parameters: [slug, version],
        get: {
          summary: "List a release's files",
          responses: { 200: ok("Files", z.object({ files: z.array(releaseFile) })), ...errors(...auth) },
        },
        post: {
          summary: "Upload files (multipart/form-data, one or more `file` parts)",
          requestBody: {
            required: true,
            content: {
              "multipart/form-data": {
                schema: {
                  type: "object",
                  properties: { file: { type: "array", items: { type: "string", format: "binary" } } },
                },
              },
            },
          },
          responses: {
            201: ok("Uploaded", z.object({ files: z.array(releaseFile) })),
            ...errors(
              "INVALID_FILENAME",
              ...auth,
              "FILE_EXISTS",
              "PAYLOAD_TOO_LARGE",
              "INSUFFICIENT_STORAGE",
            ),
          },
        },
      },
      "/api/v1/projects/{slug}/releases/{version}/files/{filename}": {
        parameters: [slug, version, filename],
        put: {
          summary:
            "Upload one file by streaming the body (`curl -T`); creates the release if needed. A .deb goes to the APT suite `?distribution=` (default stable) and `?component=` (default main); an .rpm is signed with the project key and goes to the YUM group `?group=` (default: the repository root)",
          requestBody: {
            required: true,
            content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
          },
          responses: {
            201: ok("Uploaded", z.object({ file: releaseFile })),
            ...errors(
              "INVALID_FILENAME",
              "INVALID_VERSION",
              ...auth,
              "FILE_EXISTS",
              "PAYLOAD_TOO_LARGE",
              "INSUFFICIENT_STORAGE",
            ),
          },
        },
        delete: { summary: "Delete a file", responses: { 204: ok("Deleted"), ...errors(...auth) } },
      },
      "/api/v1/projects/{slug}/keys": {
        parameters: [slug],
        get: {
          summary: "The repository signing keys in use",
          responses: { 200: ok("Keys", z.object({ keys: z.array(signingKey) })), ...errors(...auth) },
        },
      },
      "/api/v1/projects/{slug}/keys/rotate": {
        parameters: [slug],
        post: {
          summary: "Rotate the signing key: the new key signs now, the old one until the overlap ends",
          requestBody: {
            required: false,
            content: { "application/json": { schema: schema(rotateKeyInput, "input") } },
          },
          responses: {
            201: ok("Keys after the rotation", z.object({ keys: z.array(signingKey) })),
            ...errors("VALIDATION_FAILED", ...auth),
          },
        },
      },
      "/api/v1/me": {
        get: {
          summary: "Who this session or API key belongs to, and the key's scope",
          responses: { 200: ok("Caller", me), ...errors("UNAUTHENTICATED") },
        },
      },
      "/api/v1/keys": {
        get: {
          summary: "Your API keys (needs a session or an all-projects publish key)",
          responses: {
            200: ok("Keys", z.object({ keys: z.array(apiKeyInfo) })),
            ...errors("UNAUTHENTICATED", "KEY_SCOPE"),
          },
        },
        post: {
          summary: "Create an API key; its secret is in this response only",
          requestBody: jsonBody(createApiKeyInput),
          responses: {
            201: ok("Created", z.object({ key: createdApiKey })),
            ...errors("VALIDATION_FAILED", "UNAUTHENTICATED", "KEY_SCOPE", "NOT_FOUND"),
          },
        },
      },
      "/api/v1/keys/{id}": {
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        delete: {
          summary: "Delete an API key",
          responses: { 204: ok("Deleted"), ...errors("UNAUTHENTICATED", "KEY_SCOPE", "NOT_FOUND") },
        },
      },
      "/api/v1/usage": {
        get: {
          summary: "Storage and downloads against your plan",
          responses: { 200: ok("Usage", z.object({ usage })), ...errors("UNAUTHENTICATED", "KEY_SCOPE") },
        },
      },
      "/api/p/{username}/{slug}": {
        parameters: [{ ...slug, name: "username" }, slug],
        get: {
          summary: "A public project and its releases",
          security: [],
          responses: { 200: ok("Project", publicProjectResponse), ...errors("NOT_FOUND") },
        },
      },
      "/api/p/{username}/{slug}/{version}": {
        parameters: [{ ...slug, name: "username" }, slug, version],
        get: {
          summary: "A public project and one release (`latest`: the newest not yanked)",
          security: [],
          responses: { 200: ok("Release", publicReleaseResponse), ...errors("NOT_FOUND") },
        },
      },
    },
  };
}
