// Which callback addresses /auth/generate-token may send a CLI token to: exactly
// http://127.0.0.1:PORT/… or http://localhost:PORT/…, nothing else.
import { describe, expect, it } from "vitest";
import { callbackWith, checkLoopbackCallback, checkState } from "./loopback-callback.ts";

const ACCEPTED_CALLBACKS = [
  "http://127.0.0.1:53682/callback",
  "http://localhost:8080/",
  "http://localhost:8080",
  "http://127.0.0.1:1/a/b/c?x=1&y=two",
  "http://localhost:65535/auth/done",
];

const REFUSED_CALLBACKS = [
  "https://127.0.0.1:8080/callback", // https
  "https://localhost:8080/callback",
  "http://example.com:8080/callback", // other hosts
  "http://evil.example/callback",
  "http://127.0.0.1.evil.example:8080/", // look-alike hosts
  "http://localhost.evil.example:8080/",
  "http://127.0.0.2:8080/",
  "http://0.0.0.0:8080/",
  "http://[::1]:8080/",
  "http://127.1:8080/", // shorthand the URL parser would turn into 127.0.0.1
  "http://2130706433:8080/",
  "http://127.0.0.1/callback", // no port
  "http://localhost/callback",
  "http://localhost:/callback",
  "http://127.0.0.1:0/callback", // port out of range
  "http://127.0.0.1:65536/callback",
  "http://127.0.0.1:99999/callback",
  "http://user:pass@127.0.0.1:8080/callback", // userinfo
  "http://user@localhost:8080/",
  "http://127.0.0.1:8080@evil.example/", // userinfo the other way round
  "http://localhost:8080\\@evil.example/",
  "javascript:alert(1)//http://127.0.0.1:8080/", // other schemes
  "ftp://127.0.0.1:21/",
  "file:///tmp/callback",
  "data:text/html,hi",
  "ws://127.0.0.1:8080/",
  "HTTP://127.0.0.1:8080/", // not named exactly
  "http://LOCALHOST:8080/",
  "//127.0.0.1:8080/callback", // relative
  "/callback",
  "127.0.0.1:8080",
  "http://127.0.0.1:8080/callback#fragment", // fragment
  " http://127.0.0.1:8080/callback", // whitespace and control characters
  "http://127.0.0.1:8080/call back",
  "http://127.0.0.1:8080/callback\n",
  "http://127.0.0.1:8080/\u00e9",
  `http://127.0.0.1:8080/${"a".repeat(2100)}`,
  "",
];

describe("checkLoopbackCallback", () => {
  it.each(ACCEPTED_CALLBACKS)("accepts %s", (callback) => {
    const result = checkLoopbackCallback(callback);
    expect(result.ok).toBe(true);
    if (result.ok) expect(["127.0.0.1", "localhost"]).toContain(result.url.hostname);
  });

  it.each(REFUSED_CALLBACKS)("refuses %j", (callback) => {
    const result = checkLoopbackCallback(callback);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toBeTruthy();
  });

  it("refuses a missing callback", () => {
    expect(checkLoopbackCallback(null).ok).toBe(false);
    expect(checkLoopbackCallback(undefined).ok).toBe(false);
  });
});

describe("checkState", () => {
  it("accepts what a CLI sends and refuses nothing, control characters or a huge value", () => {
    expect(checkState("aB3-_~.xyz")).toEqual({ ok: true, state: "aB3-_~.xyz" });
    expect(checkState("").ok).toBe(false);
    expect(checkState(null).ok).toBe(false);
    expect(checkState("a\nb").ok).toBe(false);
    expect(checkState("x".repeat(513)).ok).toBe(false);
  });
});

describe("callbackWith", () => {
  it("adds parameters and keeps the callback's own query", () => {
    const check = checkLoopbackCallback("http://127.0.0.1:9000/done?session=1");
    if (!check.ok) throw new Error(check.error);
    const url = new URL(callbackWith(check.url, { token: "pky_abc", state: "s t&" }));
    expect(url.origin).toBe("http://127.0.0.1:9000");
    expect(url.pathname).toBe("/done");
    expect(url.searchParams.get("session")).toBe("1");
    expect(url.searchParams.get("token")).toBe("pky_abc");
    expect(url.searchParams.get("state")).toBe("s t&");
  });
});
