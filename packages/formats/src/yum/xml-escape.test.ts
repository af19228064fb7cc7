import { describe, expect, it } from "vitest";
import { escapeXmlAttribute, escapeXmlText, stripIllegalXmlCharacters } from "./xml-escape.ts";

describe("XML escaping like libxml2", () => {
  it("escapes element text minimally and keeps UTF-8", () => {
    expect(escapeXmlText(`a & b < c > d "e" 'f'\tg\nh\ri Ü 😀`)).toBe(
      `a &amp; b &lt; c &gt; d "e" 'f'\tg\nh&#13;i Ü 😀`,
    );
  });

  it("escapes attributes with character references for whitespace and non-ASCII", () => {
    expect(escapeXmlAttribute(`Tab\tPerson "q" & <x> Ünï 😀\n\r`)).toBe(
      "Tab&#9;Person &quot;q&quot; &amp; &lt;x&gt; &#xDC;n&#xEF; &#x1F600;&#10;&#13;",
    );
  });

  it("drops what XML 1.0 forbids", () => {
    expect(stripIllegalXmlCharacters("a\u0000b\u0001c\u000bd\u000ce\u001ff\ufffeg\uffffh\ud800i\tj")).toBe(
      "abcdefghi\tj",
    );
    expect(stripIllegalXmlCharacters("pair 😀 stays")).toBe("pair 😀 stays");
    expect(escapeXmlAttribute("\u0001")).toBe("");
  });
});
