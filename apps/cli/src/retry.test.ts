import { describe, expect, it } from "vitest";
import {
  backoffMs,
  defaultRetryPolicy,
  isTransientNetworkError,
  networkErrorCode,
  retryPolicyFrom,
} from "./retry.ts";

describe("backoffMs", () => {
  it("doubles from the base, with jitter between half and all of it, up to the cap", () => {
    for (let attempt = 0; attempt < 8; attempt++) {
      const full = Math.min(defaultRetryPolicy.maxMs, defaultRetryPolicy.baseMs * 2 ** attempt);
      for (let i = 0; i < 20; i++) {
        const delay = backoffMs(defaultRetryPolicy, attempt);
        expect(delay).toBeGreaterThanOrEqual(full / 2);
        expect(delay).toBeLessThanOrEqual(full);
      }
    }
  });

  it("waits as long as Retry-After asks, up to a minute", () => {
    expect(backoffMs(defaultRetryPolicy, 0, "3")).toBe(3000);
    expect(backoffMs(defaultRetryPolicy, 0, "3600")).toBe(60_000);
    expect(backoffMs(defaultRetryPolicy, 0, "soon")).toBeLessThanOrEqual(500);
  });

  it("PACKYARD_RETRY_BASE_MS shortens the waits, not the number of retries", () => {
    expect(retryPolicyFrom({ PACKYARD_RETRY_BASE_MS: "10" })).toEqual({ retries: 5, baseMs: 10, maxMs: 200 });
    expect(retryPolicyFrom({ PACKYARD_RETRY_BASE_MS: "x" })).toBe(defaultRetryPolicy);
    expect(retryPolicyFrom({})).toBe(defaultRetryPolicy);
  });
});

describe("networkErrorCode", () => {
  const fetchFailed = (cause: unknown) => Object.assign(new TypeError("fetch failed"), { cause });

  it("finds the code fetch hides in its cause, an AggregateError or a timeout", () => {
    expect(networkErrorCode(fetchFailed(Object.assign(new Error("read"), { code: "ECONNRESET" })))).toBe(
      "ECONNRESET",
    );
    const refused = Object.assign(new Error("connect"), { code: "ECONNREFUSED" });
    expect(networkErrorCode(fetchFailed(new AggregateError([refused])))).toBe("ECONNREFUSED");
    expect(networkErrorCode(new DOMException("timed out", "TimeoutError"))).toBe("ETIMEDOUT");
    expect(networkErrorCode(new Error("other"))).toBeUndefined();
  });

  it("calls resets, refusals and closed sockets transient; unknown hosts are not", () => {
    for (const code of ["ECONNRESET", "ECONNREFUSED", "UND_ERR_SOCKET", "EPIPE", "ETIMEDOUT"]) {
      expect(isTransientNetworkError(fetchFailed(Object.assign(new Error(), { code })))).toBe(true);
    }
    expect(isTransientNetworkError(fetchFailed(Object.assign(new Error(), { code: "ENOTFOUND" })))).toBe(
      false,
    );
  });
});
