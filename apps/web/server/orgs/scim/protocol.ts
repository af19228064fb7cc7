// SCIM 2.0's protocol pieces (RFC 7643, RFC 7644) that the resources share: the schema URNs, the
// refusals in SCIM's terms, the filters Packyard answers (`attribute eq "value"`, what Okta and
// Microsoft Entra ID send), and PatchOp requests read into plain operations. Attribute names are
// compared without regard to case, as RFC 7643 §2.1 asks.
import { DomainError } from "../../platform/core/errors.ts";

export const SCIM_CONTENT_TYPE = "application/scim+json";
export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const ENTERPRISE_USER_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";

/** The most resources one list answers (ServiceProviderConfig's filter.maxResults). */
export const MAX_RESULTS = 200;

/** SCIM's detail error types (RFC 7644 §3.12) that Packyard answers with. */
export type ScimType =
  | "invalidFilter"
  | "invalidSyntax"
  | "invalidPath"
  | "invalidValue"
  | "uniqueness"
  | "mutability"
  | "noTarget";

/**
 * A refusal in SCIM's terms: a DomainError (its code gives the HTTP status, api-errors.ts) that
 * carries the scimType the SCIM error body names.
 */
export function scimError(code: "VALIDATION_FAILED", scimType: ScimType, detail: string): DomainError;
export function scimError(
  code: "ALREADY_MEMBER" | "NAME_TAKEN",
  scimType: "uniqueness",
  detail: string,
): DomainError;
export function scimError(
  code: "VALIDATION_FAILED" | "ALREADY_MEMBER" | "NAME_TAKEN",
  scimType: ScimType,
  detail: string,
) {
  return new DomainError(code, detail, { scimType });
}

export const invalidValue = (detail: string) => scimError("VALIDATION_FAILED", "invalidValue", detail);

// ---------------------------------------------------------------------------------------------
// Filters.

export interface EqFilter {
  /** The attribute, lower case, without the core schema's URN ("username", "externalid"). */
  attribute: string;
  value: string;
}

const FILTER = /^\s*([A-Za-z][\w.:-]*)\s+eq\s+("(?:[^"\\]|\\.)*"|true|false)\s*$/i;

/**
 * `attribute eq "value"`: the one filter Packyard answers (what identity providers ask to find a
 * resource before creating it), on the attributes given; anything else is 400 invalidFilter.
 */
export function parseFilter(filter: string, attributes: readonly string[]): EqFilter {
  const match = FILTER.exec(filter);
  const attribute = match ? withoutCoreUrn(match[1]!).toLowerCase() : undefined;
  if (!match || !attribute || !attributes.includes(attribute))
    throw scimError(
      "VALIDATION_FAILED",
      "invalidFilter",
      `Only filters of the form attribute eq "value" are supported here, on ${attributes.join(", ")}`,
    );
  const raw = match[2]!;
  const value = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw.toLowerCase();
  return { attribute, value };
}

/** An attribute path with the core User or Group schema's URN taken off. */
export function withoutCoreUrn(path: string): string {
  for (const urn of [USER_SCHEMA, GROUP_SCHEMA])
    if (path.toLowerCase().startsWith(`${urn.toLowerCase()}:`)) return path.slice(urn.length + 1);
  return path;
}

/** startIndex and count of a list request (RFC 7644 §3.4.2.4): 1-based; count at most MAX_RESULTS. */
export function pageOf(query: { startIndex?: string; count?: string }): { offset: number; count: number } {
  const start = Number.parseInt(query.startIndex ?? "1", 10);
  const count = Number.parseInt(query.count ?? String(MAX_RESULTS), 10);
  return {
    offset: Number.isFinite(start) && start > 1 ? start - 1 : 0,
    count: Number.isFinite(count) ? Math.min(Math.max(count, 0), MAX_RESULTS) : MAX_RESULTS,
  };
}

export function listResponse(resources: unknown[], total: number, offset: number) {
  return {
    schemas: [LIST_SCHEMA],
    totalResults: total,
    startIndex: offset + 1,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

// ---------------------------------------------------------------------------------------------
// Values as identity providers send them.

/** A boolean, also as Entra sends it ("True", "False"). */
export function booleanOf(value: unknown, attribute: string): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string" && /^(true|false)$/i.test(value.trim()))
    return value.trim().toLowerCase() === "true";
  throw invalidValue(`${attribute} must be true or false`);
}

/** A string attribute's value: null for null or an empty string. */
export function textOf(value: unknown, attribute: string, max = 255): string | null {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value !== "string") throw invalidValue(`${attribute} must be a string`);
  const text = value.trim();
  if (text.length > max) throw invalidValue(`${attribute} is longer than ${max} characters`);
  return text === "" ? null : text;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An object's entries with their keys in lower case (SCIM's attribute names ignore case). */
export function lowerKeys(value: Record<string, unknown>): Map<string, unknown> {
  return new Map(Object.entries(value).map(([key, entry]) => [withoutCoreUrn(key).toLowerCase(), entry]));
}

// ---------------------------------------------------------------------------------------------
// PatchOp.

export interface PatchOperation {
  op: "add" | "replace" | "remove";
  /** The path in lower case without the core URN, or undefined: the value is an object of attributes. */
  path: string | undefined;
  value: unknown;
}

/** A PatchOp request's operations (RFC 7644 §3.5.2), ops in lower case (Entra sends "Replace"). */
export function patchOperations(body: unknown): PatchOperation[] {
  if (!isObject(body))
    throw scimError("VALIDATION_FAILED", "invalidSyntax", "The body must be a PatchOp object");
  const fields = lowerKeys(body);
  const operations = fields.get("operations");
  if (!Array.isArray(operations) || operations.length === 0)
    throw scimError("VALIDATION_FAILED", "invalidSyntax", "A PatchOp request lists its Operations");
  return operations.map((raw) => {
    if (!isObject(raw)) throw scimError("VALIDATION_FAILED", "invalidSyntax", "Each operation is an object");
    const operation = lowerKeys(raw);
    const op = String(operation.get("op") ?? "").toLowerCase();
    if (op !== "add" && op !== "replace" && op !== "remove")
      throw scimError(
        "VALIDATION_FAILED",
        "invalidSyntax",
        `Unknown operation "${String(operation.get("op"))}"`,
      );
    const rawPath = operation.get("path");
    if (rawPath !== undefined && typeof rawPath !== "string")
      throw scimError("VALIDATION_FAILED", "invalidSyntax", "An operation's path is a string");
    const path = rawPath?.trim() ? withoutCoreUrn(rawPath.trim()) : undefined;
    if (op === "remove" && path === undefined)
      throw scimError("VALIDATION_FAILED", "noTarget", "A remove operation names its path");
    if (op !== "remove" && path === undefined && !isObject(operation.get("value")))
      throw scimError(
        "VALIDATION_FAILED",
        "invalidValue",
        "An operation without a path carries an object of attributes",
      );
    return { op, path, value: operation.get("value") };
  });
}

/** `members[value eq "id"]`: the member a path names, or undefined for another path. */
export function memberOfPath(path: string): string | undefined {
  const match = /^members\[\s*value\s+eq\s+"((?:[^"\\]|\\.)*)"\s*\]$/i.exec(path);
  return match ? (JSON.parse(`"${match[1]!}"`) as string) : undefined;
}

/** The ids of a members value: `[{"value": "id"}, …]` (one object alone too). */
export function memberIdsOf(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  return list.map((entry) => {
    const id = isObject(entry) ? lowerKeys(entry).get("value") : undefined;
    if (typeof id !== "string" || id === "")
      throw invalidValue('Each member is an object with its "value" (the user\'s id)');
    return id;
  });
}
