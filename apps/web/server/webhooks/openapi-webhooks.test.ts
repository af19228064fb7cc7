// The OpenAPI document describes what Packyard POSTs to webhooks: one entry per event in its 3.1
// `webhooks` section, named by the event, with the signature headers and the payload's schema.
import { WEBHOOK_EVENTS } from "@packyard/contract";
import { describe, expect, it } from "vitest";
import { createApi } from "../platform/http/api-index.ts";
import { buildOpenApiDocument } from "../platform/http/openapi.ts";
import { createLogger } from "../platform/observability/logger.ts";
import type { Services } from "../services.ts";

const services = {
  config: { baseUrl: "https://packyard.example", nodeEnv: "test", trustProxy: false },
  logger: createLogger("silent"),
  database: { db: {} },
} as unknown as Services;
const doc = buildOpenApiDocument(createApi(services), "https://packyard.example") as unknown as {
  webhooks?: Record<
    string,
    {
      post: {
        parameters?: { name: string; in: string }[];
        requestBody: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
      };
    }
  >;
  paths: Record<string, Record<string, unknown>>;
};

describe("OpenAPI webhooks", () => {
  it("lists every event and ping with its headers and payload", () => {
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...WEBHOOK_EVENTS, "ping"].sort());
    const created = doc.webhooks!["release.created"]!.post;
    expect(created.parameters?.map((p) => `${p.in}:${p.name}`).sort()).toEqual([
      "header:Packyard-Delivery",
      "header:Packyard-Event",
      "header:Packyard-Signature",
    ]);
    const schema = created.requestBody.content["application/json"]!.schema;
    expect(Object.keys(schema.properties ?? {}).sort()).toEqual([
      "createdAt",
      "data",
      "event",
      "id",
      "project",
    ]);
  });

  it("declares the webhook routes under /api/v1", () => {
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.includes("/webhooks"))
        .sort(),
    ).toEqual([
      "/api/v1/projects/{slug}/webhooks",
      "/api/v1/projects/{slug}/webhooks/{id}",
      "/api/v1/projects/{slug}/webhooks/{id}/deliveries",
      "/api/v1/projects/{slug}/webhooks/{id}/deliveries/{deliveryId}/redeliver",
      "/api/v1/projects/{slug}/webhooks/{id}/rotate-secret",
      "/api/v1/projects/{slug}/webhooks/{id}/test",
    ]);
  });
});
