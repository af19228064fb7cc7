import sax from "sax";
import { describe, expect, it } from "vitest";
import { BADGE_COLORS, renderBadge, textWidth } from "./badge-svg.ts";

interface Parsed {
  root: { name: string; attributes: Record<string, string> };
  title: string;
  texts: string[];
  rects: Record<string, string>[];
}

/** Parses the SVG with a strict XML parser: it throws on anything that is not well-formed. */
function parse(svg: string): Parsed {
  const parser = sax.parser(true);
  const out: Parsed = { root: { name: "", attributes: {} }, title: "", texts: [], rects: [] };
  const open: string[] = [];
  // The visible <text> being read; the shadow copies (aria-hidden) are skipped.
  let visible = false;
  parser.onopentag = (tag) => {
    const attributes = tag.attributes as Record<string, string>;
    if (open.length === 0) out.root = { name: tag.name, attributes };
    if (tag.name === "rect") out.rects.push(attributes);
    if (tag.name === "text") {
      visible = attributes["aria-hidden"] !== "true";
      if (visible) out.texts.push("");
    }
    open.push(tag.name);
  };
  parser.onclosetag = () => void open.pop();
  parser.ontext = (text) => {
    if (open.at(-1) === "title") out.title += text;
    if (open.at(-1) === "text" && visible) out.texts[out.texts.length - 1] += text;
  };
  parser.onerror = (error) => {
    throw error;
  };
  parser.write(svg).close();
  return out;
}

describe("renderBadge", () => {
  it("draws label and value as text an XML parser reads back, labelled for screen readers", () => {
    const svg = parse(renderBadge({ label: "version", value: "1.4.2", color: BADGE_COLORS.ok }));
    expect(svg.root.name).toBe("svg");
    expect(svg.root.attributes.xmlns).toBe("http://www.w3.org/2000/svg");
    expect(svg.root.attributes.role).toBe("img");
    expect(svg.root.attributes["aria-label"]).toBe("version: 1.4.2");
    expect(svg.title).toBe("version: 1.4.2");
    expect(svg.texts).toEqual(["version", "1.4.2"]);
    expect(svg.rects.some((r) => r.fill === "#4c1")).toBe(true);
  });

  it("grows with its text: each side its text's width plus padding", () => {
    const short = parse(renderBadge({ label: "version", value: "1.0" }));
    const long = parse(renderBadge({ label: "version", value: "1.0.0-beta.12+build.345" }));
    expect(Number(long.root.attributes.width)).toBeGreaterThan(Number(short.root.attributes.width) + 80);
    const labelRect = short.rects.find((r) => r.fill === "#555")!;
    expect(Number(labelRect.width)).toBe(Math.round(textWidth("version") / 10) + 10);
    expect(textWidth("iii")).toBeLessThan(textWidth("mmm"));
  });

  it("escapes markup in what it is given and shortens a very long value", () => {
    const svg = renderBadge({ label: "version", value: `<script>alert("x")</script>&'` });
    expect(svg).not.toContain("<script>");
    expect(parse(svg).texts[1]).toBe(`<script>alert("x")</script>&'`);
    const long = parse(renderBadge({ label: "version", value: "9".repeat(128) }));
    expect(long.texts[1]).toHaveLength(40);
    expect(long.texts[1]!.endsWith("…")).toBe(true);
    // A colour that is not one is not written into the SVG.
    expect(renderBadge({ label: "a", value: "b", color: 'red" onload="x' })).not.toContain("onload");
  });
});
