import { describe, expect, it } from "vitest";
import { parseControlParagraph } from "../deb/control-paragraph.ts";
import { AptIndexError } from "./apt-index-error.ts";
import { type PoolFileFacts, renderPackagesStanza } from "./packages-stanza.ts";

const control = parseControlParagraph(`Package: hello
Version: 2.10-3
Architecture: amd64
Maintainer: Jane Doe <jane@example.com>
Installed-Size: 280
Depends: libc6 (>= 2.34)
Conffiles:
 /etc/hello.conf 0123456789abcdef0123456789abcdef
Description: example package that greets
 The GNU hello program produces a familiar, friendly greeting.
 .
 It is used in Packyard tests.
`);

const file: PoolFileFacts = {
  filename: "pool/main/h/hello/hello_2.10-3_amd64.deb",
  size: 53_184,
  md5: "0123456789abcdef0123456789ABCDEF",
  sha1: "1".repeat(40),
  sha256: "2".repeat(64),
  sha512: "3".repeat(128),
};

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof AptIndexError ? error.code : String(error);
  }
  return undefined;
}

describe("renderPackagesStanza", () => {
  it("keeps the control paragraph verbatim and appends file facts", () => {
    expect(renderPackagesStanza(control, file)).toBe(`Package: hello
Version: 2.10-3
Architecture: amd64
Maintainer: Jane Doe <jane@example.com>
Installed-Size: 280
Depends: libc6 (>= 2.34)
Conffiles:
 /etc/hello.conf 0123456789abcdef0123456789abcdef
Description: example package that greets
 The GNU hello program produces a familiar, friendly greeting.
 .
 It is used in Packyard tests.
Filename: pool/main/h/hello/hello_2.10-3_amd64.deb
Size: 53184
MD5sum: 0123456789abcdef0123456789abcdef
SHA1: ${"1".repeat(40)}
SHA256: ${"2".repeat(64)}
SHA512: ${"3".repeat(128)}
`);
  });

  it("drops file facts smuggled into the control file, whatever their case", () => {
    const smuggled = [
      ...control,
      ["filename", "../../etc/passwd"],
      ["SHA256", "0".repeat(64)],
      ["Size", "1"],
    ] as const;
    const stanza = renderPackagesStanza(smuggled, { ...file, sha512: undefined });
    expect(stanza.match(/^(Filename|filename|SHA256|Size):/gm)).toEqual(["Filename:", "Size:", "SHA256:"]);
    expect(stanza).not.toContain("passwd");
    expect(stanza).not.toContain("SHA512");
  });

  it.each([
    ["a short sha256", { ...file, sha256: "abc" }, "APT_BAD_HASH"],
    ["a non-hex md5", { ...file, md5: "z".repeat(32) }, "APT_BAD_HASH"],
    ["an absolute filename", { ...file, filename: "/pool/x.deb" }, "APT_BAD_PATH"],
    ["a filename with ..", { ...file, filename: "pool/../x.deb" }, "APT_BAD_PATH"],
    ["a filename with a space", { ...file, filename: "pool/x y.deb" }, "APT_BAD_PATH"],
    ["a negative size", { ...file, size: -1 }, "APT_BAD_SIZE"],
    ["a fractional size", { ...file, size: 1.5 }, "APT_BAD_SIZE"],
  ] as const)("rejects %s", (_label, facts, code) => {
    expect(codeOf(() => renderPackagesStanza(control, facts))).toBe(code);
  });

  it.each([
    ["a blank continuation line", ["Description", "x\n \n y"]],
    ["a continuation without indent", ["Description", "x\ny"]],
    ["a field name with a colon", ["Bad:Name", "x"]],
    ["a carriage return", ["Depends", "a\r"]],
  ] as const)("rejects control fields with %s", (_label, field) => {
    expect(codeOf(() => renderPackagesStanza([...control, field], file))).toBe("APT_BAD_FIELD");
  });
});
