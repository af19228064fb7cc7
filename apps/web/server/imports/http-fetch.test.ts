import { describe, expect, it } from "vitest";
import { fetchFromRepository, repositoryLocation, resolveInRepository } from "./http-fetch.ts";
import { ImportError } from "./source.ts";

const basic = (pair: string) => `Basic ${Buffer.from(pair).toString("base64")}`;

describe("repositoryLocation", () => {
  it("ends the root with a slash, with or without one given", () => {
    expect(repositoryLocation({ url: "https://repo.example.com/debian" }).base.href).toBe(
      "https://repo.example.com/debian/",
    );
    expect(repositoryLocation({ url: "https://repo.example.com/debian/" }).base.href).toBe(
      "https://repo.example.com/debian/",
    );
  });

  it("takes credentials from the fields, or from the URL, never leaving them in it", () => {
    expect(repositoryLocation({ url: "https://h/r", username: "u", password: "p" }).authorization).toBe(
      basic("u:p"),
    );
    const inUrl = repositoryLocation({ url: "https://us%40r:p%3Ass@h/r" });
    expect(inUrl.authorization).toBe(basic("us@r:p:ss"));
    expect(inUrl.base.href).toBe("https://h/r/");
    expect(repositoryLocation({ url: "https://h/r" }).authorization).toBeUndefined();
  });

  it("refuses what is not an http(s) URL", () => {
    expect(() => repositoryLocation({ url: "ftp://h/r" })).toThrow(ImportError);
    expect(() => repositoryLocation({ url: "not a url" })).toThrow("not a URL");
  });

  it("resolves index paths and xml:base against the root", () => {
    const location = repositoryLocation({ url: "https://h/el9/x86_64" });
    expect(resolveInRepository(location, "Packages/a.rpm").href).toBe("https://h/el9/x86_64/Packages/a.rpm");
    expect(resolveInRepository(location, "a.rpm", "https://cdn.example/x").href).toBe(
      "https://cdn.example/x/a.rpm",
    );
  });
});

describe("fetchFromRepository", () => {
  const location = repositoryLocation({ url: "https://h/r", username: "u", password: "secret" });
  const signal = new AbortController().signal;

  it.each([
    [401, "SOURCE_AUTH_FAILED"],
    [403, "SOURCE_AUTH_FAILED"],
    [404, "SOURCE_NOT_FOUND"],
    [410, "SOURCE_NOT_FOUND"],
    [500, "SOURCE_UNREACHABLE"],
    [418, "SOURCE_UNREACHABLE"],
  ])("maps HTTP %i to %s, naming the URL", async (status, code) => {
    const fake = (async () => new Response("no", { status })) as typeof fetch;
    const error = await fetchFromRepository(location, new URL("https://h/r/x"), {
      signal,
      fetch: fake,
    }).catch((e) => e);
    expect(error).toBeInstanceOf(ImportError);
    expect(error).toMatchObject({ code, subject: "https://h/r/x" });
    expect(error.message).toContain("https://h/r/x");
    expect(error.message).not.toContain("secret");
  });

  it("sends the credentials to the repository's own origin only", async () => {
    const seen: Array<string | null> = [];
    const fake = (async (_url: URL, init: RequestInit) => {
      seen.push(new Headers(init.headers).get("authorization"));
      return new Response("ok");
    }) as typeof fetch;
    await fetchFromRepository(location, new URL("https://h/r/a"), { signal, fetch: fake });
    await fetchFromRepository(location, new URL("https://elsewhere/a"), { signal, fetch: fake });
    expect(seen).toEqual([basic("u:secret"), null]);
  });
});
