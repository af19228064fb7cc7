// The OpenAPI document is generated from the routes' declarations: every /api/v1 and /api/p route
// the app registers is in it with its method, nothing else is, and it is valid OpenAPI 3.1.
import { tmpdir } from "node:os";
// The contract first: its schemas exist before @hono/zod-openapi is loaded, as in any module that
// imports the contract before the API (the document must not depend on that order).
import { apiErrorBody } from "@packyard/contract";
import { Validator } from "@seriousme/openapi-schema-validator";
import type { ServerBuild } from "react-router";
import { describe, expect, it } from "vitest";
import type { Services } from "../../services.ts";
import { createLogger } from "../observability/logger.ts";
import { createApi } from "./api-index.ts";
import { validationHook } from "./api-route.ts";
import { createApp } from "./app.ts";
import { buildOpenApiDocument } from "./openapi.ts";

const BASE_URL = "https://packyard.example";

// Building the app touches no service: handlers reach them only when a request comes.
const services = {
  config: { baseUrl: BASE_URL, nodeEnv: "test", trustProxy: false },
  logger: createLogger("silent"),
  database: { db: {} },
} as unknown as Services;
const app = createApp({ services, build: {} as ServerBuild, clientDir: tmpdir() });
const doc = buildOpenApiDocument(createApi(services), BASE_URL);

type Operation = {
  summary?: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
};
const paths = doc.paths as Record<string, Record<string, Operation>>;
const operation = (method: string, path: string) => paths[path]?.[method] as Operation;

/** "METHOD /api/v1/projects/{slug}" for every route the app serves under /api/v1 and /api/p. */
const served = [
  ...new Set(
    app.routes
      .filter((r) => r.method !== "ALL" && /^\/api\/(v1|p)\//.test(r.path))
      .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")}`),
  ),
].sort();
const documented = Object.entries(paths)
  .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
  .sort();

describe("OpenAPI document", () => {
  it("lists every /api/v1 and /api/p route the app registers, with its method, and no other", () => {
    expect(served.length).toBeGreaterThanOrEqual(25);
    expect(served).toEqual(
      expect.arrayContaining([
        "GET /api/v1/me",
        "GET /api/v1/keys",
        "POST /api/v1/keys",
        "DELETE /api/v1/keys/{id}",
        "GET /api/v1/projects/{slug}/keys",
        "POST /api/v1/projects/{slug}/keys/rotate",
        "PUT /api/v1/projects/{slug}/releases/{version}/files/{filename}",
        "GET /api/p/{username}/{slug}/{version}",
        "POST /api/v1/orgs",
        "GET /api/v1/orgs",
        "GET /api/v1/orgs/{slug}",
        "PATCH /api/v1/orgs/{slug}",
        "DELETE /api/v1/orgs/{slug}",
        "GET /api/v1/orgs/{slug}/members",
        "PATCH /api/v1/orgs/{slug}/members/{username}",
        "DELETE /api/v1/orgs/{slug}/members/{username}",
        "POST /api/v1/orgs/{slug}/invitations",
        "POST /api/v1/invitations/{id}/accept",
        "POST /api/v1/orgs/{slug}/keys",
        "POST /api/v1/projects/{slug}/transfer",
      ]),
    );
    expect(documented).toEqual(served);
  });

  it("declares every path parameter of every operation", () => {
    for (const [path, item] of Object.entries(paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries(item)) {
        const declared = (op.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name);
        expect(declared.sort(), `${method} ${path}`).toEqual(names.sort());
      }
    }
  });

  it("is valid OpenAPI 3.1 whose references all resolve", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(() => validator.resolveRefs()).not.toThrow();
    expect(doc.servers).toEqual([{ url: BASE_URL }]);
  });

  it("takes request and response schemas and error codes from the contract", () => {
    const create = operation("post", "/api/v1/projects");
    expect(create.summary).toBe("Create a project");
    const body = create.requestBody!.content["application/json"]!.schema as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining(["slug", "name", "visibility", "owner"]),
    );
    expect(body.required).toEqual(expect.arrayContaining(["slug", "name"]));
    expect(Object.keys(create.responses)).toEqual(
      expect.arrayContaining(["201", "400", "401", "403", "409"]),
    );
    expect(create.responses["409"]!.content!["application/json"]!.schema).toEqual({
      $ref: "#/components/schemas/Error",
    });
    const error = doc.components?.schemas?.Error as { properties: Record<string, unknown> };
    expect(Object.keys(error.properties)).toEqual(["error"]);
    expect(error).toMatchObject({ required: ["error"] });
    expect(apiErrorBody.safeParse({ error: { code: "FILE_EXISTS", message: "x" } }).success).toBe(true);
    expect(operation("post", "/api/v1/projects/{slug}/keys/rotate").requestBody?.required).toBe(false);
  });

  it("describes the streaming uploads' bodies without schemas that would parse them", () => {
    const put = operation("put", "/api/v1/projects/{slug}/releases/{version}/files/{filename}");
    expect(put.requestBody!.content["application/octet-stream"]!.schema).toEqual({
      type: "string",
      format: "binary",
    });
    expect(put.parameters!.filter((p) => p.in === "query").map((p) => p.name)).toEqual([
      "distribution",
      "component",
      "group",
    ]);
    expect(Object.keys(put.responses)).toEqual(expect.arrayContaining(["201", "400", "409", "413", "507"]));
    const post = operation("post", "/api/v1/projects/{slug}/releases/{version}/files");
    expect(Object.keys(post.requestBody!.content)).toEqual(["multipart/form-data"]);
  });

  it("leaves the public routes without authentication", () => {
    expect(operation("get", "/api/p/{username}/{slug}")).toMatchObject({ security: [] });
    expect(doc.security).toEqual([{ apiKey: [] }, { session: [] }]);
    expect(Object.keys(doc.components?.securitySchemes ?? {})).toEqual(["apiKey", "session"]);
  });

  it("is plain JSON", () => {
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });
});

describe("validationHook", () => {
  it("answers a declared parameter's failure in Packyard's VALIDATION_FAILED shape", async () => {
    const { z } = await import("zod");
    const parsed = z.object({ id: z.string().min(3, "Too short") }).safeParse({ id: "x" });
    const res = validationHook({ ...parsed, target: "param" } as never, {} as never) as Response;
    expect(res.status).toBe(400);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({
      error: { code: "VALIDATION_FAILED", message: "Too short", details: { id: "Too short" } },
    });
  });

  it("lets a valid request through", () => {
    expect(
      validationHook({ success: true, data: {}, target: "param" } as never, {} as never),
    ).toBeUndefined();
  });
});
