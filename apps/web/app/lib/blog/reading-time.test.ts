import { describe, expect, it } from "vitest";
import { readingTimeLabel, readingTimeMinutes } from "./reading-time.ts";

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(" ");
const block = (text: string, key = "b") => ({
  _type: "block",
  _key: key,
  style: "normal",
  children: [{ _type: "span", _key: `${key}s`, text, marks: [] }],
  markDefs: [],
});

describe("readingTimeMinutes (spec §9)", () => {
  it("divides the words by 200 and rounds up", () => {
    expect(readingTimeMinutes([block(words(200))])).toBe(1);
    expect(readingTimeMinutes([block(words(201))])).toBe(2);
    expect(readingTimeMinutes([block(words(400))])).toBe(2);
    expect(readingTimeMinutes([block(words(401))])).toBe(3);
    expect(readingTimeMinutes([block(words(1000))])).toBe(5);
  });

  it("adds up the words of every block and of every span in a block", () => {
    const twoSpans = {
      ...block(""),
      children: [
        { _type: "span", _key: "a", text: `${words(150)} `, marks: ["strong"] },
        { _type: "span", _key: "b", text: words(150), marks: [] },
      ],
    };
    expect(readingTimeMinutes([twoSpans, block(words(150), "c")])).toBe(3);
  });

  it("is at least one minute, also for an empty body or blocks without words", () => {
    expect(readingTimeMinutes([])).toBe(1);
    expect(readingTimeMinutes([block("   ")])).toBe(1);
    expect(readingTimeMinutes([block("three short words")])).toBe(1);
  });

  it("gives 5 minutes for a missing body", () => {
    expect(readingTimeMinutes(undefined)).toBe(5);
    expect(readingTimeMinutes(null)).toBe(5);
  });

  it("gives 5 minutes for a body that is not an array", () => {
    expect(readingTimeMinutes("a string of words")).toBe(5);
    expect(readingTimeMinutes({ _type: "block", children: [] })).toBe(5);
    expect(readingTimeMinutes(42)).toBe(5);
  });

  it("counts only text blocks: code, images and malformed entries add no words", () => {
    const body = [
      block(words(200)),
      { _type: "code", _key: "c", code: words(5000) },
      { _type: "image", _key: "i", alt: words(300) },
      { _type: "block", _key: "x" },
      null,
      "stray",
    ];
    expect(readingTimeMinutes(body)).toBe(1);
  });

  it("labels minutes as a reader sees them", () => {
    expect(readingTimeLabel(4)).toBe("4 min read");
  });
});
