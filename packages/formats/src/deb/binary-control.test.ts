import { describe, expect, it } from "vitest";
import { summarizeBinaryControl } from "./binary-control.ts";
import { parseControlParagraph } from "./control-paragraph.ts";
import { DebFormatError } from "./deb-format-error.ts";

const base: Record<string, string> = {
  Package: "hello",
  Version: "1.0-1",
  Architecture: "amd64",
  Maintainer: "Jane <jane@example.com>",
  Description: "greets\n the world",
};

function control(overrides: Record<string, string | undefined>) {
  const merged = { ...base, ...overrides };
  const text = Object.entries(merged)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}: ${value}\n`)
    .join("");
  return parseControlParagraph(text);
}

function errorOf(run: () => unknown): DebFormatError | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof DebFormatError) return error;
    throw error;
  }
  return undefined;
}

describe("summarizeBinaryControl", () => {
  it("returns name, version, architecture, source and installed size", () => {
    expect(summarizeBinaryControl(control({ "Installed-Size": "280", Source: "hello-src (1.0-0)" }))).toEqual(
      {
        name: "hello",
        version: "1.0-1",
        architecture: "amd64",
        source: "hello-src",
        installedSizeKiB: 280,
      },
    );
    expect(summarizeBinaryControl(control({})).source).toBe("hello");
    expect(summarizeBinaryControl(control({})).installedSizeKiB).toBeUndefined();
  });

  it.each(["Package", "Version", "Architecture", "Maintainer", "Description"])("requires %s", (field) => {
    const error = errorOf(() => summarizeBinaryControl(control({ [field]: undefined })));
    expect(error?.code).toBe("DEB_MISSING_FIELD");
    expect(error?.field).toBe(field);
  });

  it.each([
    ["Package", "Hello"],
    ["Package", "h"],
    ["Package", "-hello"],
    ["Package", "hello_world"],
    ["Version", "v1.0"],
    ["Version", "1.0-"],
    ["Architecture", "any"],
    ["Architecture", "linux-any"],
    ["Architecture", "amd64 i386"],
    ["Architecture", "AMD64"],
    ["Installed-Size", "12k"],
    ["Source", "Bad Source"],
    ["Maintainer", "Jane\n continued"],
  ])("rejects %s: %j", (field, value) => {
    const error = errorOf(() => summarizeBinaryControl(control({ [field]: value })));
    expect(error?.code).toBe("DEB_BAD_FIELD");
    expect(error?.field).toBe(field);
  });

  it("accepts policy-conforming odd names", () => {
    const summary = summarizeBinaryControl(
      control({ Package: "g++-12", Version: "12.2.0-14+deb12u1", Architecture: "all" }),
    );
    expect(summary.name).toBe("g++-12");
  });

  it("rejects an empty synopsis", () => {
    expect(errorOf(() => summarizeBinaryControl(control({ Description: "\n only long" })))?.code).toBe(
      "DEB_BAD_FIELD",
    );
  });
});
