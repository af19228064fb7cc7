import { describe, expect, it } from "vitest";
import { isArMagicPrefix, parseArHeader, startsWithArMagic } from "./ar-header.ts";
import { DebFormatError } from "./deb-format-error.ts";

function header(name: string, size: string, terminator = "`\n"): Uint8Array {
  const text = `${name.padEnd(16)}${"0".padEnd(12)}${"0".padEnd(6)}${"0".padEnd(6)}${"100644".padEnd(8)}${size.padEnd(10)}${terminator}`;
  return new TextEncoder().encode(text);
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof DebFormatError ? error.code : String(error);
  }
  return undefined;
}

describe("parseArHeader", () => {
  it("reads name and size", () => {
    expect(parseArHeader(header("debian-binary", "4"))).toEqual({ name: "debian-binary", size: 4 });
  });

  it("tolerates a GNU-style trailing slash", () => {
    expect(parseArHeader(header("control.tar.xz/", "1234"))).toEqual({ name: "control.tar.xz", size: 1234 });
  });

  it("accepts the largest size the field can hold", () => {
    expect(parseArHeader(header("data.tar", "9999999999")).size).toBe(9_999_999_999);
  });

  it.each([
    ["bad terminator", header("debian-binary", "4", "xx")],
    ["negative size", header("debian-binary", "-4")],
    ["hex size", header("debian-binary", "0x10")],
    ["empty size", header("debian-binary", "")],
    ["GNU symbol table", header("/", "4")],
    ["GNU long-name reference", header("/0", "4")],
    ["BSD long name", header("#1/20", "4")],
    ["short header", new Uint8Array(59)],
  ])("rejects %s", (_label, bytes) => {
    expect(codeOf(() => parseArHeader(bytes))).toBe("DEB_BAD_ARCHIVE");
  });
});

describe("ar magic", () => {
  const encode = (text: string) => new TextEncoder().encode(text);
  it("recognises the magic and its prefixes", () => {
    expect(startsWithArMagic(encode("!<arch>\nrest"))).toBe(true);
    expect(startsWithArMagic(encode("!<arch"))).toBe(false);
    expect(isArMagicPrefix(encode("!<ar"))).toBe(true);
    expect(isArMagicPrefix(encode(""))).toBe(true);
    expect(isArMagicPrefix(encode("PK\u0003"))).toBe(false);
  });
});
