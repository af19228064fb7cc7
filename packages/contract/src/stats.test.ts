import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import {
  CLIENT_KINDS,
  classifyClient,
  daysOf,
  formatBadgeCount,
  isInstaller,
  statsPeriod,
  statsQuery,
} from "./stats.ts";

describe("classifyClient", () => {
  it.each([
    ["Debian APT-HTTP/1.3 (2.6.1)", "apt"],
    ["Debian APT-HTTP/1.3 (2.7.14) non-interactive", "apt"],
    ["Ubuntu APT-HTTP/1.3 (2.4.12)", "apt"],
    ["Debian APT-CURL/1.0 (1.0.9.8)", "apt"],
    ["dnf/4.14.0", "dnf"],
    ["npm/10.8.2 node/v20.20.2 linux x64 workspaces/false", "npm"],
    ["yarn/1.22.22 npm/? node/v20.20.2 linux x64", "npm"],
    ["pnpm/9.12.0 npm/? node/v20.20.2 linux x64", "npm"],
    ['pip/23.0.1 {"ci":null,"cpu":"x86_64","implementation":{"name":"CPython","version":"3.11.2"}}', "pip"],
    ['uv/0.4.18 {"installer":{"name":"uv","version":"0.4.18"}}', "uv"],
    ["urlgrabber/3.10 yum/3.4.3", "dnf"],
    ["curl/7.88.1", "curl"],
    ["curl/8.5.0", "curl"],
    ["Wget/1.21.3", "curl"],
    ["wget2/2.1.0", "other"],
    [
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      "browser",
    ],
    ["Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "browser"],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
      "browser",
    ],
    ["Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "other"],
    [
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0 Safari/537.36",
      "other",
    ],
    ["ZYpp 17.31.15 (curl 8.6.0) openSUSE-Tumbleweed-x86_64", "zypper"],
    ["ZYpp 17.25.7 (curl 7.66.0) SLES-15.3-x86_64", "zypper"],
    ["ZYpp 17.31.0", "zypper"],
    ["librpm", "other"],
    ["python-requests/2.31.0", "other"],
    ["Go-http-client/1.1", "other"],
    ["", "other"],
  ])("%s → %s", (ua, client) => {
    expect(classifyClient(ua).client).toBe(client);
  });

  it("keeps the distribution libdnf names", () => {
    expect(classifyClient("libdnf (Debian GNU/Linux 12; generic; Linux.x86_64)")).toEqual({
      client: "dnf",
      distribution: "Debian GNU/Linux 12",
    });
    expect(classifyClient("libdnf (Fedora Linux 40; container; Linux.x86_64)")).toEqual({
      client: "dnf",
      distribution: "Fedora Linux 40",
    });
    expect(classifyClient(undefined)).toEqual({ client: "other" });
    // libzypp names the product it runs on after its curl version.
    expect(classifyClient("ZYpp 17.31.15 (curl 8.6.0) openSUSE-Tumbleweed-x86_64")).toEqual({
      client: "zypper",
      distribution: "openSUSE-Tumbleweed-x86_64",
    });
    expect(classifyClient("ZYpp 17.31.0")).toEqual({ client: "zypper" });
    expect(classifyClient(`libdnf (${"x".repeat(200)}; generic; Linux.x86_64)`).distribution).toHaveLength(
      64,
    );
  });
});

describe("installs and downloads", () => {
  it("counts the package managers' files as installs, every other client's as downloads", () => {
    expect(CLIENT_KINDS.filter(isInstaller)).toEqual(["apt", "dnf", "zypper", "npm", "pip", "uv"]);
    for (const ua of [
      "Debian APT-HTTP/1.3 (2.6.1)",
      "libdnf (Fedora Linux 40; container; Linux.x86_64)",
      "ZYpp 17.31.15 (curl 8.6.0) openSUSE-Tumbleweed-x86_64",
    ])
      expect(isInstaller(classifyClient(ua).client), ua).toBe(true);
    for (const ua of ["curl/8.5.0", "Wget/1.21.3", "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0", "node"])
      expect(isInstaller(classifyClient(ua).client), ua).toBe(false);
  });
});

describe("the stats query", () => {
  it("defaults to the last 30 days by day", () => {
    const query = statsQuery.parse({});
    expect(query.by).toBe("day");
    expect(statsPeriod(query, "2026-11-23")).toEqual({ from: "2026-10-25", to: "2026-11-23" });
    expect(daysOf({ from: "2026-10-25", to: "2026-11-23" })).toHaveLength(30);
    expect(statsPeriod({ to: "2026-03-01" }, "2026-11-23")).toEqual({ from: "2026-01-31", to: "2026-03-01" });
    expect(statsPeriod({ from: "2026-11-20" }, "2026-11-23")).toEqual({
      from: "2026-11-20",
      to: "2026-11-23",
    });
  });

  it("refuses dates that are not YYYY-MM-DD calendar days, unknown groupings and parameters", () => {
    expect(() => statsQuery.parse({ from: "2026-02-30" })).toThrow(/real calendar date/);
    expect(() => statsQuery.parse({ to: "23/11/2026" })).toThrow(/YYYY-MM-DD/);
    expect(() => statsQuery.parse({ by: "week" })).toThrow(/by must be one of day, file, version, client/);
    expect(() => statsQuery.parse({ since: "2026-01-01" })).toThrow(ZodError);
  });

  it("refuses a period that ends before it starts or spans more than a year", () => {
    expect(statsPeriod({ from: "2026-11-02", to: "2026-11-01" }, "2026-11-23")).toEqual({
      error: { field: "from", message: "from must not be after to" },
    });
    expect(statsPeriod({ from: "2025-01-01", to: "2026-11-01" }, "2026-11-23")).toEqual({
      error: { field: "to", message: "A period may span at most 366 days" },
    });
    expect(statsPeriod({ from: "2025-11-23", to: "2026-11-23" }, "2026-11-23")).toEqual({
      from: "2025-11-23",
      to: "2026-11-23",
    });
  });
});

describe("formatBadgeCount", () => {
  it.each([
    [0, "0"],
    [999, "999"],
    [1000, "1k"],
    [1234, "1.2k"],
    [12_345, "12k"],
    [999_999, "999k"],
    [3_456_789, "3.4M"],
    [2_000_000_000, "2G"],
  ])("%i → %s", (count, text) => {
    expect(formatBadgeCount(count)).toBe(text);
  });
});
