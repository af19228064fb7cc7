import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./openapi.ts";

describe("OpenAPI document", () => {
  const doc = buildOpenApiDocument("https://packyard.example");

  it("describes every API route with request and error schemas from the contract", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/projects",
        "/api/v1/projects/{slug}/releases/{version}/files/{filename}",
        "/api/v1/projects/{slug}/releases/{version}/yank",
        "/api/v1/usage",
        "/api/p/{username}/{slug}/{version}",
      ]),
    );
    const create = doc.paths["/api/v1/projects"].post;
    const body = create.requestBody.content["application/json"].schema as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(["slug", "name", "visibility"]));
    expect(body.required).toEqual(expect.arrayContaining(["slug", "name"]));
    expect(Object.keys(create.responses)).toEqual(
      expect.arrayContaining(["201", "400", "401", "403", "409"]),
    );
    const upload = doc.paths["/api/v1/projects/{slug}/releases/{version}/files/{filename}"].put;
    expect(Object.keys(upload.responses)).toEqual(
      expect.arrayContaining(["201", "400", "409", "413", "507"]),
    );
  });

  it("is plain JSON", () => {
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });
});
