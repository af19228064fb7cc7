import { describe, expect, it } from "vitest";
import {
  type ControlField,
  getControlField,
  parseControlParagraph,
  renderControlParagraph,
} from "./control-paragraph.ts";
import { DebFormatError } from "./deb-format-error.ts";

function errorOf(run: () => unknown): DebFormatError | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof DebFormatError) return error;
    throw error;
  }
  return undefined;
}

describe("parseControlParagraph", () => {
  it("keeps order, trims first lines and keeps continuation lines", () => {
    const text =
      "Package: hello\nVersion:  1.0-1  \nConffiles:\n /etc/hello.conf 0123\n" +
      "Description: greets\n the world\n .\n\tindented by tab   \n";
    const fields = parseControlParagraph(text);
    expect(fields).toEqual<ControlField[]>([
      ["Package", "hello"],
      ["Version", "1.0-1"],
      ["Conffiles", "\n /etc/hello.conf 0123"],
      ["Description", "greets\n the world\n .\n\tindented by tab"],
    ]);
    expect(renderControlParagraph(fields)).toBe(
      "Package: hello\nVersion: 1.0-1\nConffiles:\n /etc/hello.conf 0123\nDescription: greets\n the world\n .\n\tindented by tab\n",
    );
  });

  it("normalizes CRLF, a BOM, comments and blank lines around the paragraph", () => {
    const fields = parseControlParagraph(
      "\uFEFF\r\n# comment\r\nPackage: a1\r\nDescription: x\r\n y\r\n\r\n\r\n",
    );
    expect(fields).toEqual([
      ["Package", "a1"],
      ["Description", "x\n y"],
    ]);
  });

  it("finds fields case-insensitively", () => {
    const fields = parseControlParagraph("package: a1\nINSTALLED-SIZE: 12\n");
    expect(getControlField(fields, "Package")).toBe("a1");
    expect(getControlField(fields, "Installed-Size")).toBe("12");
    expect(getControlField(fields, "Depends")).toBeUndefined();
  });

  it.each([
    ["two paragraphs", "Package: a\n\nPackage: b\n", "more than one paragraph"],
    ["a continuation first", " Package: a\n", "continuation line before any field"],
    ["a line without colon", "Package a\n", 'expected "Field: value"'],
    ["a field starting with a hyphen", "-Package: a\n", 'expected "Field: value"'],
    ["a duplicate field", "Package: a\npackage: b\n", "appears twice"],
    ["nothing", "\n\n", "no fields"],
  ])("rejects %s", (_label, text, message) => {
    const error = errorOf(() => parseControlParagraph(text));
    expect(error?.code).toBe("DEB_BAD_CONTROL");
    expect(error?.message).toContain(message);
  });

  it("treats a whitespace-only line as the end of the paragraph, like dpkg", () => {
    expect(errorOf(() => parseControlParagraph("Description: a\n  \n b\n"))?.code).toBe("DEB_BAD_CONTROL");
  });
});
