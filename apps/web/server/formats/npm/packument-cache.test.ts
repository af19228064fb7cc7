// The packument cache serves a document only at the revision it was built for, and keeps
// within its bytes by dropping the least recently used.
import { describe, expect, it } from "vitest";
import { PackumentCache } from "./packument-cache.ts";

const doc = (body: string) => ({ body, etag: `"${body.length}"` });

describe("PackumentCache", () => {
  it("answers only at the revision the document was built for", () => {
    const cache = new PackumentCache();
    cache.set("p\0@acme/sdk", "1-a", doc("one"));
    expect(cache.get("p\0@acme/sdk", "1-a")).toEqual(doc("one"));
    expect(cache.get("p\0@acme/sdk", "2-b")).toBeUndefined();
    cache.set("p\0@acme/sdk", "2-b", doc("two"));
    expect(cache.get("p\0@acme/sdk", "1-a")).toBeUndefined();
    expect(cache.get("p\0@acme/sdk", "2-b")).toEqual(doc("two"));
  });

  it("drops the least recently used past its bytes, and keeps no document larger than a quarter of them", () => {
    const cache = new PackumentCache(40);
    cache.set("a", "r", doc("x".repeat(10)));
    cache.set("b", "r", doc("y".repeat(10)));
    cache.set("c", "r", doc("z".repeat(10)));
    expect(cache.get("a", "r")).toBeDefined();
    cache.set("d", "r", doc("w".repeat(10)));
    cache.set("e", "r", doc("v".repeat(10)));
    expect(cache.get("b", "r")).toBeUndefined();
    expect(cache.get("a", "r")).toBeDefined();
    expect(cache.get("e", "r")).toBeDefined();
    cache.set("big", "r", doc("u".repeat(11)));
    expect(cache.get("big", "r")).toBeUndefined();
  });
});
