// SCIM's protocol pieces as identity providers send them: filters, PatchOp requests in Okta's and
// Entra's spellings, member paths and string booleans.
import { describe, expect, it } from "vitest";
import { DomainError } from "../../platform/core/errors.ts";
import { booleanOf, memberIdsOf, memberOfPath, pageOf, parseFilter, patchOperations } from "./protocol.ts";

const scimTypeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return error instanceof DomainError ? error.details?.scimType : "not a DomainError";
  }
  return undefined;
};

describe("SCIM filters", () => {
  it("reads attribute eq value, whatever the case of the attribute and the operator", () => {
    expect(parseFilter('userName eq "a@b.com"', ["username"])).toEqual({
      attribute: "username",
      value: "a@b.com",
    });
    expect(parseFilter(' UserName EQ "q\\"uote" ', ["username"])).toEqual({
      attribute: "username",
      value: 'q"uote',
    });
    expect(
      parseFilter('urn:ietf:params:scim:schemas:core:2.0:User:externalId eq "x"', ["username", "externalid"]),
    ).toEqual({ attribute: "externalid", value: "x" });
  });

  it("refuses other operators, attributes and compound filters with invalidFilter", () => {
    for (const filter of [
      'userName co "a"',
      'title eq "x"',
      'userName eq "a" and active eq true',
      "userName",
    ])
      expect(
        scimTypeOf(() => parseFilter(filter, ["username"])),
        filter,
      ).toBe("invalidFilter");
  });

  it("pages from 1, at most 200 at a time", () => {
    expect(pageOf({})).toEqual({ offset: 0, count: 200 });
    expect(pageOf({ startIndex: "3", count: "1000" })).toEqual({ offset: 2, count: 200 });
    expect(pageOf({ startIndex: "0", count: "-4" })).toEqual({ offset: 0, count: 0 });
  });
});

describe("SCIM PatchOp", () => {
  it("reads Entra's capitalized ops and Okta's pathless values", () => {
    expect(
      patchOperations({
        schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        Operations: [
          { op: "Replace", path: "active", value: "False" },
          { op: "replace", value: { active: false } },
        ],
      }),
    ).toEqual([
      { op: "replace", path: "active", value: "False" },
      { op: "replace", path: undefined, value: { active: false } },
    ]);
  });

  it("refuses what is not a PatchOp", () => {
    expect(scimTypeOf(() => patchOperations({ Operations: [] }))).toBe("invalidSyntax");
    expect(scimTypeOf(() => patchOperations({ Operations: [{ op: "move", path: "x" }] }))).toBe(
      "invalidSyntax",
    );
    expect(scimTypeOf(() => patchOperations({ Operations: [{ op: "remove" }] }))).toBe("noTarget");
    expect(scimTypeOf(() => patchOperations({ Operations: [{ op: "add", value: 3 }] }))).toBe("invalidValue");
  });

  it("reads member paths, member values and string booleans", () => {
    expect(memberOfPath('members[value eq "abc"]')).toBe("abc");
    expect(memberOfPath("members")).toBeUndefined();
    expect(memberIdsOf([{ value: "a" }, { Value: "b" }])).toEqual(["a", "b"]);
    expect(memberIdsOf({ value: "a" })).toEqual(["a"]);
    expect(scimTypeOf(() => memberIdsOf([{ display: "x" }]))).toBe("invalidValue");
    expect([booleanOf("True", "active"), booleanOf("false", "active"), booleanOf(true, "active")]).toEqual([
      true,
      false,
      true,
    ]);
    expect(scimTypeOf(() => booleanOf("yes", "active"))).toBe("invalidValue");
  });
});
