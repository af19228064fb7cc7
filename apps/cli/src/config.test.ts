import { readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import {
  configPath,
  DEFAULT_SERVER,
  normalizeServer,
  readStoredConfig,
  resolveCredentials,
  tokenPrefix,
  writeStoredConfig,
} from "./config.ts";
import { CliError } from "./errors.ts";
import { cliHome } from "./test-support/run-cli.ts";

describe("the config file", () => {
  it("lives in $XDG_CONFIG_HOME/packyard, else ~/.config/packyard", () => {
    expect(configPath({ XDG_CONFIG_HOME: "/x", HOME: "/h" })).toBe("/x/packyard/config.json");
    expect(configPath({ HOME: "/h" })).toBe("/h/.config/packyard/config.json");
  });

  it("is written 0600 in a 0700 directory, also over a looser existing file", () => {
    const env = cliHome();
    const path = configPath(env);
    writeStoredConfig(env, { server: "https://a.example", token: "pky_1" });
    writeFileSync(path, "{}", { mode: 0o644 });
    writeStoredConfig(env, { server: "https://b.example", token: "pky_2" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ server: "https://b.example", token: "pky_2" });
  });

  it("that is damaged is named in the error", () => {
    const env = cliHome();
    writeStoredConfig(env, { server: "https://a.example", token: "pky_1" });
    writeFileSync(configPath(env), "{not json");
    expect(() => readStoredConfig(env)).toThrowError(
      expect.objectContaining({ code: "CONFIG_INVALID", message: expect.stringContaining(configPath(env)) }),
    );
  });
});

describe("resolveCredentials", () => {
  it("takes --server/--token, then PACKYARD_SERVER/PACKYARD_TOKEN, then the stored login", () => {
    const env = cliHome();
    writeStoredConfig(env, { server: "https://stored.example", token: "pky_stored" });
    expect(resolveCredentials({}, env)).toEqual({
      server: "https://stored.example",
      token: "pky_stored",
      tokenSource: "config",
    });
    expect(resolveCredentials({}, { ...env, PACKYARD_TOKEN: "pky_env" })).toMatchObject({
      token: "pky_env",
      tokenSource: "PACKYARD_TOKEN",
    });
    expect(resolveCredentials({ token: "pky_flag" }, { ...env, PACKYARD_TOKEN: "pky_env" })).toMatchObject({
      token: "pky_flag",
      tokenSource: "--token",
    });
    expect(
      resolveCredentials(
        { server: "https://flag.example/" },
        { ...env, PACKYARD_SERVER: "https://env.example" },
      ).server,
    ).toBe("https://flag.example");
  });

  it("never offers the stored token to another server", () => {
    const env = cliHome();
    writeStoredConfig(env, { server: "https://stored.example", token: "pky_stored" });
    expect(resolveCredentials({ server: "https://other.example" }, env)).toEqual({
      server: "https://other.example",
      token: undefined,
      tokenSource: undefined,
    });
    expect(resolveCredentials({ server: "https://stored.example/" }, env).token).toBe("pky_stored");
  });

  it("falls back to the default server", () => {
    expect(resolveCredentials({}, cliHome()).server).toBe(DEFAULT_SERVER);
  });
});

describe("normalizeServer", () => {
  it("keeps scheme, host, port and path, without a trailing slash", () => {
    expect(normalizeServer("https://packyard.example/")).toBe("https://packyard.example");
    expect(normalizeServer("http://127.0.0.1:3000/base/")).toBe("http://127.0.0.1:3000/base");
  });

  it.each(["packyard.example", "ftp://packyard.example", "https://user:pw@packyard.example"])(
    "refuses %s as a usage error",
    (raw) => {
      expect(() => normalizeServer(raw)).toThrowError(CliError);
      try {
        normalizeServer(raw);
      } catch (error) {
        expect((error as CliError).exitCode).toBe(2);
      }
    },
  );
});

it("tokenPrefix shows what the API keys page shows", () => {
  expect(tokenPrefix("pky_abcdefghijklmnop")).toBe("pky_ab…");
});
