// The OpenAPI 3.1 document of /api/v1 and /api/p, generated from the routes' declarations
// (api/route.ts), so it lists exactly what the server serves, with the zod contract's schemas.
// Served at /api/openapi.json.
import type { OpenAPIHono } from "@hono/zod-openapi";
import { apiErrorBody } from "@packyard/contract";
import { z } from "zod";

/** The one error body every error response refers to (api/route.ts errorSchemaRef). */
function errorSchema() {
  const { $schema: _, ...schema } = z.toJSONSchema(apiErrorBody, { target: "draft-2020-12" });
  return schema;
}

export function buildOpenApiDocument(api: OpenAPIHono, baseUrl: string) {
  const document = api.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Packyard API",
      version: "1",
      description:
        'Projects, releases and files. Authenticate with the session cookie or an API key: `Authorization: Bearer pky_…`. Errors are `{"error":{"code","message","details"}}`.',
    },
    servers: [{ url: baseUrl }],
    security: [{ apiKey: [] }, { session: [] }],
  });
  return {
    ...document,
    components: {
      ...document.components,
      schemas: { ...document.components?.schemas, Error: errorSchema() },
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "An API key from /api-keys" },
        session: { type: "apiKey", in: "cookie", name: "better-auth.session_token" },
      },
    },
  };
}
