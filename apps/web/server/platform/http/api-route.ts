// How an API route is declared (decision 011): once, with createRoute — method, path, parameters,
// request body, responses and the error codes it answers with — and served with serve(), which
// puts the declaration in the OpenAPI document and registers the handler. The document at
// /api/openapi.json is generated from these declarations, so it cannot miss a route.
//
// Bodies are read by the handler, after it has checked who is calling: a JSON body with
// readJson() and the schema its route declares (from any Content-Type, as `curl -d` sends with
// a key), an upload as the stream it is. The library validates path parameters only, and answers
// a failure with Packyard's VALIDATION_FAILED shape (validationHook).
import { type Hook, OpenAPIHono, type RouteConfig, type RouteHandler, z } from "@hono/zod-openapi";
import { type ApiErrorCode, apiErrorStatus } from "@packyard/contract";
import type { Context, Env } from "hono";
import type { ZodType } from "zod";
import { type ProjectRow, requireOwnProject } from "../../projects/storage.ts";
import type { Services } from "../../services.ts";
import type { Access, Actor } from "../core/authorization.ts";
import { DomainError } from "../core/errors.ts";
import type { PersonCaller } from "../core/use-case.ts";
import { requireActor } from "./actor.ts";
import { toApiErrorResponse, validationFailedResponse } from "./api-errors.ts";
import { clientAddress } from "./request-log.ts";

/** What the library answers when a declared parameter fails its schema: 400 VALIDATION_FAILED. */
export const validationHook: Hook<unknown, Env, string, Response | undefined> = (result) =>
  result.success ? undefined : validationFailedResponse(result.error);

/** An app of API routes: its failures answered by api-errors.ts, its declarations in the document. */
export function createApiApp(services: Pick<Services, "logger">): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.onError((error) => toApiErrorResponse(error, services.logger));
  return app;
}

/** What the handler is registered with: the declaration less what the handler reads itself. */
type Served<R extends RouteConfig> = Omit<R, "request"> & {
  request: Omit<NonNullable<R["request"]>, "body" | "query">;
};

/** Registers a declared route: the whole declaration in the document, the handler on its path. */
export function serve<R extends RouteConfig>(
  app: OpenAPIHono,
  route: R,
  handler: RouteHandler<Served<R>>,
): void {
  app.openAPIRegistry.registerPath(route);
  const { body: _body, query: _query, ...validated } = route.request ?? {};
  app.openapi({ ...route, request: validated, hide: true } as Served<R>, handler);
}

type JsonSchemaOf<R> = R extends {
  request: { body: { content: { "application/json": { schema: infer S extends ZodType } } } };
}
  ? S
  : never;

/**
 * The route's JSON body parsed with the schema it declares. Not JSON: 400 VALIDATION_FAILED, or
 * `{}` when the route declares its body optional. A schema's refusal: VALIDATION_FAILED by field.
 */
export async function readJson<R extends RouteConfig>(
  c: Context,
  route: R,
): Promise<z.output<JsonSchemaOf<R>>> {
  const body = route.request?.body;
  const schema = (body?.content["application/json"] as { schema?: JsonSchemaOf<R> } | undefined)?.schema;
  if (!schema) throw new Error(`${route.method} ${route.path} declares no JSON body`);
  const value = await c.req.json().catch(() => {
    if (!body?.required) return {};
    throw new DomainError("VALIDATION_FAILED", "The request body is not valid JSON");
  });
  return schema.parse(value) as z.output<JsonSchemaOf<R>>;
}

/**
 * The caller's project of that slug or owner/slug (its own or an organization's it belongs to),
 * with `needed` access: else 401, 400, 404, 403 KEY_SCOPE or FORBIDDEN, or 409 AMBIGUOUS_PROJECT.
 */
export async function ownProject(
  services: Services,
  c: Context,
  slug: string,
  needed: Access,
): Promise<ProjectRow> {
  return (await callerAndProject(services, c, slug, needed)).project;
}

/** ownProject with the caller too, for routes that record what they did (server/audit). */
export async function callerAndProject(
  services: Services,
  c: Context,
  slug: string,
  needed: Access,
): Promise<{ actor: Actor; project: ProjectRow }> {
  const actor = await requireActor(services, c.req.raw.headers);
  return { actor, project: await requireOwnProject(services.database.db, actor, slug, needed) };
}

/** The caller and the client's address: a use case's caller. */
export function requestCaller(services: Services, c: Context, actor: Actor): PersonCaller {
  return { actor, address: clientAddress(c, services.config.trustProxy) };
}

// ---------------------------------------------------------------------------------------------
// Pieces of declarations.

/** A JSON request body: `required` unless the route takes an empty body too. */
export const jsonBody = <T extends ZodType>(schema: T, { required = true } = {}) => ({
  required,
  content: { "application/json": { schema } },
});

/** A JSON response. */
export const json = <T extends ZodType>(description: string, schema: T) => ({
  description,
  content: { "application/json": { schema } },
});

/** A response without a body (204). */
export const empty = (description: string) => ({ description });

/** Every API error body (`apiErrorBody`): one schema in the document, added by openapi.ts. */
export const errorSchemaRef = { $ref: "#/components/schemas/Error" } as const;
type ErrorResponse = {
  description: string;
  content: { "application/json": { schema: typeof errorSchemaRef } };
};

/** The error responses of these codes, one per status, each naming its codes. */
export function errors<const C extends ApiErrorCode>(...codes: C[]) {
  const responses: Record<number, ErrorResponse> = {};
  for (const status of new Set(codes.map((code) => apiErrorStatus[code]))) {
    const named = codes.filter((code) => apiErrorStatus[code] === status);
    responses[status] = {
      description: [...new Set(named)].join(", "),
      content: { "application/json": { schema: errorSchemaRef } },
    };
  }
  return responses as { [S in (typeof apiErrorStatus)[C]]: ErrorResponse };
}

/**
 * What a route on the caller's project answers when it cannot serve: see ownProject. FORBIDDEN:
 * the caller's role in the owning organization does not allow it; AMBIGUOUS_PROJECT: a slug alone
 * that names several projects the caller reaches.
 */
export const projectAccessErrors = [
  "UNAUTHENTICATED",
  "INVALID_SLUG",
  "KEY_SCOPE",
  "FORBIDDEN",
  "NOT_FOUND",
  "AMBIGUOUS_PROJECT",
] as const;

// Path parameters.
export const projectPath = z.object({
  slug: z
    .string()
    .describe(
      "The project's slug. An organization's project may also be named with its owner: /projects/{owner}/{slug}/… (or {owner}%2F{slug})",
    ),
});
export const releasePath = projectPath.extend({
  version: z.string().describe("A version, or `latest` when reading"),
});
export const filePath = releasePath.extend({ filename: z.string() });
