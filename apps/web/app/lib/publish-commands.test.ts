import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkKeyCommand,
  ciConfig,
  cliCommands,
  curlUploadCommand,
  exportTokenCommand,
  installCliCommand,
  loginCommand,
  parseProjectArgument,
  pushCommand,
  shellWord,
  tokenCommands,
  uploadUrl,
} from "./publish-commands.ts";

const target = { baseUrl: "https://packyard.example", owner: "you", slug: "widget" };
const docs = (path: string) => readFileSync(resolve(import.meta.dirname, "../../../../docs", path), "utf8");

describe("publish commands", () => {
  it("are the README's: install the served CLI, log in to this server, push OWNER/PROJECT VERSION FILES", () => {
    const readme = readFileSync(resolve(import.meta.dirname, "../../../../README.md"), "utf8");
    expect(installCliCommand(target.baseUrl)).toBe("curl -fsSL https://packyard.example/cli/install.sh | sh");
    expect(loginCommand(target.baseUrl)).toBe("packyard login --server https://packyard.example");
    expect(readme).toContain(installCliCommand(target.baseUrl));
    expect(readme).toContain(loginCommand(target.baseUrl));
    expect(pushCommand(target, "1.2.0")).toBe("packyard push you/widget 1.2.0 dist/*");
    expect(cliCommands(target, "2.0.0")).toEqual([
      "curl -fsSL https://packyard.example/cli/install.sh | sh",
      "packyard login --server https://packyard.example",
      "packyard push you/widget 2.0.0 dist/*",
    ]);
  });

  it("upload with curl -T to /api/v1/projects/{owner}/{slug}/releases/{version}/files/{name} with PACKYARD_TOKEN", () => {
    expect(exportTokenCommand()).toBe("export PACKYARD_TOKEN=pky_…");
    expect(curlUploadCommand(target, "1.2.0")).toBe(
      'curl -fsS -T dist/widget_1.2.0_amd64.deb -H "Authorization: Bearer $PACKYARD_TOKEN" ' +
        "https://packyard.example/api/v1/projects/you/widget/releases/1.2.0/files/widget_1.2.0_amd64.deb",
    );
    expect(tokenCommands(target)[1]).toContain("/releases/1.0.0/files/widget_1.0.0_amd64.deb");
    expect(checkKeyCommand("https://packyard.example/")).toBe(
      'curl -fsS -H "Authorization: Bearer $PACKYARD_TOKEN" https://packyard.example/api/v1/projects',
    );
    for (const command of [...cliCommands(target), ...tokenCommands(target), checkKeyCommand(target.baseUrl)])
      expect(command).not.toContain("PACKYARD_KEY");
  });

  it("encode the URL and quote for the shell what would otherwise change meaning", () => {
    expect(uploadUrl(target, "1.0+build~1", "a b.deb")).toBe(
      "https://packyard.example/api/v1/projects/you/widget/releases/1.0%2Bbuild~1/files/a%20b.deb",
    );
    expect(shellWord("1.2.0")).toBe("1.2.0");
    expect(shellWord("~beta")).toBe("'~beta'");
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(pushCommand(target, "~rc1")).toBe("packyard push you/widget '~rc1' dist/*");
    expect(parseProjectArgument("acme/widget")).toEqual({ owner: "acme", slug: "widget" });
    expect(parseProjectArgument("widget")).toBeUndefined();
  });

  it("give the CI files of docs/ci/ with the project filled into the push line only", () => {
    const github = ciConfig("github-actions", target);
    expect(ciConfig("github-actions")).toBe(docs("ci/github-actions.yml"));
    expect(ciConfig("gitlab-ci")).toBe(docs("ci/gitlab-ci.yml"));
    expect(github).toMatch(/packyard push you\/widget "\$\{TAG#v\}" dist\/\*/);
    // Trusted publishing: an ID token, no stored Packyard secret.
    expect(github).toContain("id-token: write");
    expect(github).not.toContain("secrets.");
    expect(ciConfig("gitlab-ci")).toContain("PACKYARD_ID_TOKEN:");
    expect(ciConfig("gitlab-ci", target)).toMatch(
      /packyard push you\/widget "\$\{CI_COMMIT_TAG#v\}" dist\/\*/,
    );
    expect(github.replace("push you/widget ", "push OWNER/PROJECT ")).toBe(docs("ci/github-actions.yml"));
  });
});
