import { describe, expect, it } from "vitest";
import { parseRpmFile, signaturePadding } from "./rpm-file.ts";
import { stringEntry } from "./rpm-header-writer.ts";
import { syntheticRpm } from "./testing/synthetic-rpm.ts";

describe("parseRpmFile", () => {
  it("pads the signature header to 8 bytes", () => {
    expect([0, 1, 7, 8, 9, 4404].map(signaturePadding)).toEqual([0, 7, 1, 0, 7, 4]);
  });

  it("finds the main header after the padded signature header, for every padding length", () => {
    for (let extra = 0; extra < 8; extra++) {
      const bytes = syntheticRpm({ signature: [stringEntry(273, "x".repeat(extra))] });
      const file = parseRpmFile(bytes);
      expect(file.headerStart % 8).toBe(0);
      expect(file.header.getString(1000)).toBe("synthetic");
      expect(file.prefix.length).toBe(file.headerEnd);
      expect(new TextDecoder().decode(bytes.subarray(file.headerEnd))).toBe("payload");
    }
  });
});
