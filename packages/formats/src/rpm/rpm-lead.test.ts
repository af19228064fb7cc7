import { describe, expect, it } from "vitest";
import type { RpmFormatError } from "./rpm-format-error.ts";
import { parseRpmLead } from "./rpm-lead.ts";
import { syntheticLead } from "./testing/synthetic-rpm.ts";

const codeOf = (bytes: Uint8Array) => {
  try {
    parseRpmLead(bytes);
    return "OK";
  } catch (error) {
    return (error as RpmFormatError).code;
  }
};

describe("parseRpmLead", () => {
  it("reads the fields", () => {
    expect(parseRpmLead(syntheticLead("pkg-1.0-1"))).toEqual({
      major: 3,
      minor: 0,
      type: 0,
      archNumber: 1,
      name: "pkg-1.0-1",
      osNumber: 1,
      signatureType: 5,
    });
  });

  it("refuses what rpm refuses", () => {
    const edit = (at: number, value: number) => {
      const lead = syntheticLead();
      lead[at] = value;
      return lead;
    };
    expect(codeOf(syntheticLead().subarray(0, 95))).toBe("RPM_TRUNCATED");
    expect(codeOf(edit(3, 0xdc))).toBe("RPM_BAD_MAGIC");
    expect(codeOf(edit(4, 2))).toBe("RPM_UNSUPPORTED");
    expect(codeOf(edit(4, 5))).toBe("RPM_UNSUPPORTED");
    expect(codeOf(edit(79, 1))).toBe("RPM_UNSUPPORTED");
    expect(codeOf(edit(4, 4))).toBe("OK");
  });

  it("marks its errors with the part", () => {
    const lead = syntheticLead();
    lead[0] = 0;
    expect(() => parseRpmLead(lead)).toThrow(
      expect.objectContaining({ part: "lead", name: "RpmFormatError" }),
    );
  });
});
