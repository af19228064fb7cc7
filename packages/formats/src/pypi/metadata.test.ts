import { describe, expect, it } from "vitest";
import { MAX_METADATA_BYTES, PypiMetadataError, parseCoreMetadata } from "./metadata.ts";

const text = (s: string) => new TextEncoder().encode(s);

describe("core metadata", () => {
  it("reads the fields, multiple-use ones in order, continuation lines, and the body as the description", () => {
    const m = parseCoreMetadata(
      text(
        [
          "Metadata-Version: 2.1",
          "Name: acme-sdk",
          "Version: 1.2.0",
          "Summary: The Acme SDK",
          "Requires-Python: >=3.9",
          "Classifier: Programming Language :: Python :: 3",
          "Classifier: License :: OSI Approved :: MIT License",
          "License: MIT,",
          "        and more",
          "",
          "# Acme SDK",
          "",
          "Talks to Acme.",
        ].join("\n"),
      ),
    );
    expect(m).toMatchObject({
      metadataVersion: "2.1",
      name: "acme-sdk",
      version: "1.2.0",
      summary: "The Acme SDK",
      requiresPython: ">=3.9",
      description: "# Acme SDK\n\nTalks to Acme.",
    });
    expect(m.fields.get("classifier")).toHaveLength(2);
    expect(m.fields.get("license")).toEqual(["MIT,\nand more"]);
  });

  it("refuses what is not metadata with a named error", () => {
    expect(() => parseCoreMetadata(text("Name: x\nVersion: 1\n"))).toThrow(PypiMetadataError);
    expect(() => parseCoreMetadata(text("  indented first\n"))).toThrow(PypiMetadataError);
    expect(() => parseCoreMetadata(text("no colon here\n"))).toThrow(PypiMetadataError);
    expect(() => parseCoreMetadata(new Uint8Array([0xff, 0xfe, 0x00]))).toThrow(PypiMetadataError);
    expect(() => parseCoreMetadata(new Uint8Array(MAX_METADATA_BYTES + 1))).toThrow(PypiMetadataError);
  });
});
