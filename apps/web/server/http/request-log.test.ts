// Request ids: a proxy's id only when trusted and well-formed, otherwise a new random UUID.
import { describe, expect, it } from "vitest";
import { newRequestId, requestIdOf } from "./request-log.ts";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("request ids", () => {
  it("are version 4 UUIDs, all different, across many batches of random bytes", () => {
    const ids = Array.from({ length: 2000 }, () => newRequestId());
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("take the proxy's id only when the proxy is trusted and the id looks like one", () => {
    expect(requestIdOf("edge-7f3a.1", true)).toBe("edge-7f3a.1");
    expect(requestIdOf("edge-7f3a.1", false)).toMatch(UUID_V4);
    expect(requestIdOf('bad "id"\n', true)).toMatch(UUID_V4);
    expect(requestIdOf(undefined, true)).toMatch(UUID_V4);
  });
});
