// /scim/v2: SCIM 2.0 (RFC 7643, RFC 7644) for organizations' identity providers — Okta,
// Microsoft Entra ID and others provision and deprovision an organization's members here
// (docs/sso.md). A bearer token (tokens.ts) names the organization. Users and Groups with list
// (filter `attribute eq "value"`, startIndex, count), read, create, replace, PatchOp and delete;
// the discovery documents say what is supported and nothing more. Answers are
// application/scim+json; failures SCIM's error shape with the status the API gives their code
// (api-errors.ts's describeFailure), and a scimType where SCIM has one. What the changes do to
// memberships is provisioning.ts's.
import { apiErrorStatus } from "@packyard/contract";
import { type Context, Hono } from "hono";
import { DomainError, notFound } from "../../platform/core/errors.ts";
import { credentialFromHeaders } from "../../platform/http/actor.ts";
import { describeFailure } from "../../platform/http/api-errors.ts";
import { clientAddress } from "../../platform/http/request-log.ts";
import type { Services } from "../../services.ts";
import {
  ENTERPRISE_USER_SCHEMA,
  ERROR_SCHEMA,
  GROUP_SCHEMA,
  listResponse,
  MAX_RESULTS,
  pageOf,
  SCIM_CONTENT_TYPE,
  scimError,
  USER_SCHEMA,
} from "./protocol.ts";
import {
  createGroup,
  createUser,
  deleteGroup,
  deleteUser,
  getGroup,
  getUser,
  listGroups,
  listUsers,
  patchGroup,
  patchUser,
  replaceGroup,
  replaceUser,
  type ScimDeps,
} from "./provisioning.ts";
import { authenticateScimToken, type ScimClient } from "./tokens.ts";

/** The largest request body read (a group's PUT with thousands of members fits). */
const MAX_BODY_BYTES = 1024 * 1024;

function scimJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": SCIM_CONTENT_TYPE, "cache-control": "no-store", ...headers },
  });
}

function serviceProviderConfig(scimUrl: string) {
  return {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "OAuth Bearer Token",
        description: "The organization's SCIM token (pks_…) as a bearer token",
        primary: true,
      },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${scimUrl}/ServiceProviderConfig` },
  };
}

function resourceTypes(scimUrl: string) {
  return [
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
      id: "User",
      name: "User",
      endpoint: "/Users",
      description: "A member of the organization, by their email address at one of its verified domains",
      schema: USER_SCHEMA,
      schemaExtensions: [],
      meta: { resourceType: "ResourceType", location: `${scimUrl}/ResourceTypes/User` },
    },
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
      id: "Group",
      name: "Group",
      endpoint: "/Groups",
      description: "A group of the identity provider: the organization's group roles map its name to a role",
      schema: GROUP_SCHEMA,
      schemaExtensions: [],
      meta: { resourceType: "ResourceType", location: `${scimUrl}/ResourceTypes/Group` },
    },
  ];
}

const attribute = (
  name: string,
  type: string,
  options: {
    required?: boolean;
    mutability?: string;
    uniqueness?: string;
    caseExact?: boolean;
    multiValued?: boolean;
    description: string;
    subAttributes?: unknown[];
  },
) => ({
  name,
  type,
  multiValued: options.multiValued ?? false,
  description: options.description,
  required: options.required ?? false,
  caseExact: options.caseExact ?? false,
  mutability: options.mutability ?? "readWrite",
  returned: "default",
  uniqueness: options.uniqueness ?? "none",
  ...(options.subAttributes ? { subAttributes: options.subAttributes } : {}),
});

function schemas(scimUrl: string) {
  const reference = (description: string, mutability = "readWrite") => [
    attribute("value", "string", { description, mutability }),
    attribute("display", "string", { description: "Its name", mutability: "readOnly" }),
    attribute("$ref", "reference", { description: "Its URI", mutability: "readOnly" }),
  ];
  return [
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
      id: USER_SCHEMA,
      name: "User",
      description: "A member of the organization",
      attributes: [
        attribute("userName", "string", {
          required: true,
          uniqueness: "server",
          description: "The user's email address, at one of the organization's verified domains",
        }),
        attribute("name", "complex", {
          description: "The user's name",
          subAttributes: [
            attribute("formatted", "string", { description: "The full name", mutability: "readOnly" }),
            attribute("givenName", "string", { description: "The given name" }),
            attribute("familyName", "string", { description: "The family name" }),
          ],
        }),
        attribute("displayName", "string", { description: "The name shown for the user" }),
        attribute("emails", "complex", {
          multiValued: true,
          mutability: "readOnly",
          description: "The user's address: userName",
          subAttributes: [
            attribute("value", "string", { description: "The address", mutability: "readOnly" }),
            attribute("type", "string", { description: "work", mutability: "readOnly" }),
            attribute("primary", "boolean", { description: "true", mutability: "readOnly" }),
          ],
        }),
        attribute("active", "boolean", {
          description: "Whether the user is a member of the organization: false removes the membership",
        }),
        attribute("groups", "complex", {
          multiValued: true,
          mutability: "readOnly",
          description: "The groups the user is in",
          subAttributes: reference("The group's id", "readOnly"),
        }),
        attribute("externalId", "string", { caseExact: true, description: "The identity provider's id" }),
      ],
      meta: { resourceType: "Schema", location: `${scimUrl}/Schemas/${USER_SCHEMA}` },
    },
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
      id: GROUP_SCHEMA,
      name: "Group",
      description: "A group of the identity provider",
      attributes: [
        attribute("displayName", "string", {
          required: true,
          uniqueness: "server",
          caseExact: true,
          description: "The group's name, which the organization's group roles map to a role",
        }),
        attribute("members", "complex", {
          multiValued: true,
          description: "The users in the group",
          subAttributes: reference("The user's id"),
        }),
        attribute("externalId", "string", { caseExact: true, description: "The identity provider's id" }),
      ],
      meta: { resourceType: "Schema", location: `${scimUrl}/Schemas/${GROUP_SCHEMA}` },
    },
  ];
}

type ScimEnv = { Variables: { client: ScimClient } };

export function createScimRoutes(services: Services) {
  const { config, logger } = services;
  const scimUrl = `${config.baseUrl}/scim/v2`;
  const deps: ScimDeps = { db: services.database.db, scimUrl, clock: services.clock };
  const app = new Hono<ScimEnv>();

  app.onError((error) => {
    const failure = describeFailure(error, logger);
    const status = apiErrorStatus[failure.code];
    const scimType = error instanceof DomainError ? error.details?.scimType : undefined;
    const headers: Record<string, string> = {};
    if (status === 401) headers["www-authenticate"] = 'Bearer realm="Packyard SCIM"';
    if (failure.retryAfterSeconds !== undefined) headers["retry-after"] = String(failure.retryAfterSeconds);
    return scimJson(
      {
        schemas: [ERROR_SCHEMA],
        status: String(status),
        ...(scimType ? { scimType } : {}),
        detail: failure.message,
      },
      status,
      headers,
    );
  });
  app.use("*", async (c, next) => {
    const token = credentialFromHeaders(c.req.raw.headers);
    const address = clientAddress(c, config.trustProxy);
    c.set("client", await authenticateScimToken(deps.db, token, address, services.clock()));
    await next();
  });

  const client = (c: Context<ScimEnv>) => c.get("client");
  const bodyOf = async (c: Context<ScimEnv>): Promise<unknown> => {
    const length = Number(c.req.header("content-length") ?? 0);
    if (length > MAX_BODY_BYTES) throw new DomainError("PAYLOAD_TOO_LARGE", "The request body is too large");
    const text = await c.req.text();
    if (Buffer.byteLength(text) > MAX_BODY_BYTES)
      throw new DomainError("PAYLOAD_TOO_LARGE", "The request body is too large");
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw scimError("VALIDATION_FAILED", "invalidSyntax", "The request body is not valid JSON");
    }
  };
  const listQuery = (c: Context<ScimEnv>) => {
    const { offset, count } = pageOf({ startIndex: c.req.query("startIndex"), count: c.req.query("count") });
    const filter = c.req.query("filter");
    return { offset, count, ...(filter ? { filter } : {}) };
  };
  /** excludedAttributes=members: groups without their members (Entra asks so). */
  const withMembers = (c: Context<ScimEnv>) =>
    !(c.req.query("excludedAttributes") ?? "")
      .split(",")
      .some((name) => name.trim().toLowerCase() === "members");

  // Discovery (RFC 7644 §4).
  app.get("/ServiceProviderConfig", () => scimJson(serviceProviderConfig(scimUrl)));
  app.get("/ResourceTypes", () => {
    const types = resourceTypes(scimUrl);
    return scimJson(listResponse(types, types.length, 0));
  });
  app.get("/ResourceTypes/:id", (c) => {
    const type = resourceTypes(scimUrl).find((t) => t.id === c.req.param("id"));
    if (!type) throw notFound("No such resource type: User, Group");
    return scimJson(type);
  });
  app.get("/Schemas", () => {
    const all = schemas(scimUrl);
    return scimJson(listResponse(all, all.length, 0));
  });
  app.get("/Schemas/:id", (c) => {
    const schema = schemas(scimUrl).find((s) => s.id === c.req.param("id"));
    if (!schema)
      throw notFound(
        c.req.param("id") === ENTERPRISE_USER_SCHEMA
          ? "The enterprise extension is not kept: its attributes are accepted and ignored"
          : "No such schema",
      );
    return scimJson(schema);
  });

  // Users.
  app.get("/Users", async (c) => {
    const query = listQuery(c);
    const { total, resources } = await listUsers(deps, client(c), query);
    return scimJson(listResponse(resources, total, query.offset));
  });
  app.post("/Users", async (c) => {
    const user = await createUser(deps, client(c), await bodyOf(c));
    return scimJson(user, 201, { location: user.meta.location });
  });
  app.get("/Users/:id", async (c) => scimJson(await getUser(deps, client(c), c.req.param("id"))));
  app.put("/Users/:id", async (c) =>
    scimJson(await replaceUser(deps, client(c), c.req.param("id"), await bodyOf(c))),
  );
  app.patch("/Users/:id", async (c) =>
    scimJson(await patchUser(deps, client(c), c.req.param("id"), await bodyOf(c))),
  );
  app.delete("/Users/:id", async (c) => {
    await deleteUser(deps, client(c), c.req.param("id"));
    return c.body(null, 204);
  });

  // Groups.
  app.get("/Groups", async (c) => {
    const query = listQuery(c);
    const { total, resources } = await listGroups(deps, client(c), query, withMembers(c));
    return scimJson(listResponse(resources, total, query.offset));
  });
  app.post("/Groups", async (c) => {
    const group = await createGroup(deps, client(c), await bodyOf(c));
    return scimJson(group, 201, { location: group.meta.location });
  });
  app.get("/Groups/:id", async (c) =>
    scimJson(await getGroup(deps, client(c), c.req.param("id"), withMembers(c))),
  );
  app.put("/Groups/:id", async (c) =>
    scimJson(await replaceGroup(deps, client(c), c.req.param("id"), await bodyOf(c))),
  );
  app.patch("/Groups/:id", async (c) =>
    scimJson(await patchGroup(deps, client(c), c.req.param("id"), await bodyOf(c))),
  );
  app.delete("/Groups/:id", async (c) => {
    await deleteGroup(deps, client(c), c.req.param("id"));
    return c.body(null, 204);
  });

  // Anything else under /scim/v2 (Bulk, /Me, …): a SCIM 404, never a page.
  app.all("*", () => {
    throw notFound(
      "No such SCIM endpoint: /Users, /Groups, /ServiceProviderConfig, /ResourceTypes, /Schemas",
    );
  });

  return app;
}
