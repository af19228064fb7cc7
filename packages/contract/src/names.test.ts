import { describe, expect, it } from "vitest";
import { filename, filenameProblem, normalizeFilename, projectSlug, releaseVersion } from "./names.ts";

const INVISIBLE =
  "Filename may not contain invisible characters (such as zero-width spaces or text-direction marks)";
const BLANK = "Filename may not be blank (only spaces or invisible characters)";
const OTHER_SPACE = "Filename may not contain spaces other than the ordinary space";

describe("filenameProblem: ordinary names", () => {
  it.each([
    "tool-1.2.0.tar.gz",
    "tool_1.2.0_amd64.deb",
    "tool-1.2.0-1.x86_64.rpm",
    "My Tool 1.2 setup.exe",
    "paquete-ñ.tar.gz",
    "Größe-überall.zip",
    "工具-1.0.tar.gz",
    "ツール.dmg",
    "도구.zip",
    "أداة.zip",
    "עברית.tar.gz",
    "δοκιμή.txt",
    "emoji-🚀.tar.gz",
    "a",
    "v1.0..tar.gz",
  ])("accepts %j", (name) => {
    expect(filenameProblem(name)).toBeUndefined();
    expect(filename.safeParse(name).success).toBe(true);
  });
});

describe("filenameProblem: look-alike names", () => {
  // Each of these characters draws nothing, or reorders what follows, so the name reads as
  // another one ("tool\u202Ezg.rat.exe" shows as "toolexe.tar.gz").
  it.each([
    ["U+202A left-to-right embedding", "\u202A"],
    ["U+202B right-to-left embedding", "\u202B"],
    ["U+202C pop directional formatting", "\u202C"],
    ["U+202D left-to-right override", "\u202D"],
    ["U+202E right-to-left override", "\u202E"],
    ["U+2066 left-to-right isolate", "\u2066"],
    ["U+2067 right-to-left isolate", "\u2067"],
    ["U+2068 first strong isolate", "\u2068"],
    ["U+2069 pop directional isolate", "\u2069"],
    ["U+200B zero-width space", "\u200B"],
    ["U+200C zero-width non-joiner", "\u200C"],
    ["U+200D zero-width joiner", "\u200D"],
    ["U+200E left-to-right mark", "\u200E"],
    ["U+200F right-to-left mark", "\u200F"],
    ["U+2060 word joiner", "\u2060"],
    ["U+2061 function application", "\u2061"],
    ["U+FEFF byte-order mark", "\uFEFF"],
    ["U+061C Arabic letter mark", "\u061C"],
    ["U+00AD soft hyphen", "\u00AD"],
    ["U+180E Mongolian vowel separator", "\u180E"],
    ["U+034F combining grapheme joiner", "\u034F"],
    ["U+115F Hangul choseong filler", "\u115F"],
    ["U+3164 Hangul filler", "\u3164"],
    ["U+FE0F variation selector 16", "\uFE0F"],
    ["U+E0041 tag latin capital A", "\u{E0041}"],
    ["U+2800 braille blank", "\u2800"],
    ["U+E000 private use", "\uE000"],
    ["U+F0000 supplementary private use", "\u{F0000}"],
    ["U+0378 unassigned", "\u0378"],
    ["U+FFFF noncharacter", "\uFFFF"],
    ["U+D800 lone surrogate", "\uD800"],
    ["U+DC00 lone surrogate", "\uDC00"],
    ["U+2028 line separator", "\u2028"],
    ["U+2029 paragraph separator", "\u2029"],
  ])("refuses %s inside a name", (_label, ch) => {
    for (const name of [`tool${ch}.tar.gz`, `${ch}tool.tar.gz`, `tool.tar.gz${ch}`]) {
      expect(filenameProblem(name)).toBe(INVISIBLE);
      expect(filename.safeParse(name).success).toBe(false);
    }
  });

  it("refuses the classic right-to-left override disguise", () => {
    expect(filenameProblem("invoice\u202Efdp.exe")).toBe(INVISIBLE);
  });

  it.each([
    ["U+0085 next line", "\u0085"],
    ["U+009B control sequence introducer", "\u009B"],
    ["U+0009 tab", "\t"],
    ["U+000A newline", "\n"],
  ])("refuses the control character %s", (_label, ch) => {
    expect(filenameProblem(`tool${ch}.tar.gz`)).toBe("Filename may not contain control characters");
  });

  it.each([
    ["one space", " "],
    ["spaces", "   "],
    ["no-break spaces", "\u00A0\u00A0"],
    ["ideographic space", "\u3000"],
    ["em and en spaces", "\u2003\u2002"],
    ["a zero-width space", "\u200B"],
    ["spaces and a byte-order mark", " \uFEFF "],
  ])("refuses a name of only %s", (_label, name) => {
    expect(filenameProblem(name)).toBe(BLANK);
  });

  it.each([
    ["U+00A0 no-break space", "\u00A0"],
    ["U+1680 ogham space mark", "\u1680"],
    ["U+2000 en quad", "\u2000"],
    ["U+2007 figure space", "\u2007"],
    ["U+200A hair space", "\u200A"],
    ["U+202F narrow no-break space", "\u202F"],
    ["U+205F medium mathematical space", "\u205F"],
    ["U+3000 ideographic space", "\u3000"],
  ])("refuses the special space %s", (_label, ch) => {
    expect(filenameProblem(`my${ch}tool.tar.gz`)).toBe(OTHER_SPACE);
  });

  it.each([" tool.tar.gz", "  tool.tar.gz"])("refuses the leading space in %j", (name) => {
    expect(filenameProblem(name)).toBe("Filename may not start with a space");
  });

  it.each(["tool.tar.gz ", "tool.tar.gz.", "tool.tar.gz. ", "tool.tar.gz .", "tool.."])(
    "refuses the trailing space or dot in %j",
    (name) => {
      expect(filenameProblem(name)).toBe("Filename may not end with a space or a dot");
    },
  );

  it("still refuses what it refused before", () => {
    expect(filenameProblem("")).toBe("Filename is required");
    expect(filenameProblem(".")).toBe("Filename may not be . or ..");
    expect(filenameProblem("..")).toBe("Filename may not be . or ..");
    expect(filenameProblem("a/b")).toBe("Filename may not contain / or \\");
    expect(filenameProblem("a\\b")).toBe("Filename may not contain / or \\");
    expect(filenameProblem(".hidden")).toBe("Filename may not start with . or -");
    expect(filenameProblem("-rf")).toBe("Filename may not start with . or -");
    expect(filenameProblem("SHA256SUMS")).toBe("SHA256SUMS is generated by Packyard");
    expect(filenameProblem("a\u0000b")).toBe("Filename may not contain control characters");
    expect(filenameProblem("x".repeat(256))).toBe("Filename must be at most 255 bytes");
    expect(filenameProblem("ñ".repeat(128))).toBe("Filename must be at most 255 bytes");
  });
});

describe("normalizeFilename", () => {
  const composed = "paquete-\u00F1.tar.gz"; // ñ as one code point
  const decomposed = "paquete-n\u0303.tar.gz"; // n + combining tilde, as macOS sends it

  it("turns the decomposed (NFD) form into the composed (NFC) name", () => {
    expect(decomposed).not.toBe(composed);
    expect(normalizeFilename(decomposed)).toBe(composed);
    expect(normalizeFilename(composed)).toBe(composed);
    expect(normalizeFilename(decomposed.normalize("NFD"))).toBe(composed);
  });

  it("makes two names that look the same one name", () => {
    const names = ["Größe.zip".normalize("NFD"), "Größe.zip".normalize("NFC"), "한국어.txt".normalize("NFD")];
    expect(new Set(names.map(normalizeFilename)).size).toBe(2);
    expect(normalizeFilename("한국어.txt".normalize("NFD"))).toBe("한국어.txt".normalize("NFC"));
  });

  it("leaves ASCII and already-NFC names as they are", () => {
    for (const name of ["tool-1.2.0.tar.gz", "工具-1.0.tar.gz", "emoji-🚀.tar.gz"]) {
      expect(normalizeFilename(name)).toBe(name);
    }
  });

  it("gives a name that passes validation when the NFD input was a good name", () => {
    expect(filenameProblem(normalizeFilename(decomposed))).toBeUndefined();
  });
});

describe("releaseVersion", () => {
  it.each(["1.0.0", "2.0.0-rc.1", "1.0+build.5", "2.3~beta_1", "latest-fixes", "v1-latest"])(
    "accepts %j",
    (version) => {
      expect(releaseVersion.safeParse(version).success).toBe(true);
    },
  );

  it.each(["latest", "LATEST", "Latest", "lAtEsT", ".", ".."])("reserves %j", (version) => {
    const parsed = releaseVersion.safeParse(version);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe("This version name is reserved");
  });

  it.each([
    ["right-to-left override", "1.0\u202E0"],
    ["zero-width space", "1.0\u200B"],
    ["byte-order mark", "\uFEFF1.0"],
    ["left-to-right isolate", "\u20661.0\u2069"],
    ["Arabic letter mark", "1.0\u061C"],
    ["a space", "1.0 "],
    ["only spaces", "   "],
    ["no-break space", "1.0\u00A0beta"],
    ["a fullwidth digit", "１.0"],
  ])("refuses a version with %s", (_label, version) => {
    const parsed = releaseVersion.safeParse(version);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe("Version may contain only letters, digits and . + ~ _ -");
  });
});

describe("projectSlug", () => {
  it("keeps to lowercase ASCII", () => {
    expect(projectSlug.safeParse("my-tool").success).toBe(true);
    expect(projectSlug.safeParse("my\u200Btool").success).toBe(false);
  });
});
