// The CI configuration shown with each trusted publisher: a job of it is one the publisher trusts
// (its workflow file, environment and ref), it asks for an ID token for this server, and it pushes
// to the project with the CLI this server serves.
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ciSnippet, githubSnippet, gitlabSnippet } from "./snippets.ts";

const target = { baseUrl: "https://packyard.example/", owner: "acme", slug: "widget" };
const none = { workflow: null, environment: null, ref: null };

describe("the GitHub Actions workflow", () => {
  it("may ask for the job's ID token and pushes the tag's version with the server's CLI", () => {
    const snippet = githubSnippet({ provider: "github", ...none }, target);
    expect(snippet.path).toBe(".github/workflows/packyard.yml");
    const workflow = parse(snippet.text);
    expect(workflow.on.push).toEqual({ tags: ["v*"] });
    expect(workflow.jobs.publish.permissions).toEqual({ contents: "read", "id-token": "write" });
    const push = workflow.jobs.publish.steps.at(-1);
    expect(push.env).toEqual({ PACKYARD_SERVER: "https://packyard.example" });
    expect(push.run).toContain('curl -fsSL "$PACKYARD_SERVER/cli/install.sh" | sh');
    expect(push.run).toContain(`packyard push acme/widget "\${GITHUB_REF_NAME#v}" dist/*`);
  });

  it("is the publisher's workflow file, in its environment, run by the refs it allows", () => {
    const snippet = githubSnippet(
      { provider: "github", workflow: "release.yml", environment: "pypi release", ref: "refs/tags/v*" },
      target,
    );
    expect(snippet.path).toBe(".github/workflows/release.yml");
    const workflow = parse(snippet.text);
    expect(workflow.on.push).toEqual({ tags: ["v*"] });
    expect(workflow.jobs.publish.environment).toBe("pypi release");

    const branch = parse(githubSnippet({ provider: "github", ...none, ref: "refs/heads/main" }, target).text);
    expect(branch.on.push).toEqual({ branches: ["main"] });
    expect(branch.jobs.publish.steps.at(-1).run).toContain("packyard push acme/widget VERSION dist/*");
    // A bare name is a branch's or a tag's.
    const name = parse(githubSnippet({ provider: "github", ...none, ref: "stable" }, target).text);
    expect(name.on.push).toEqual({ branches: ["stable"], tags: ["stable"] });
  });
});

describe("the GitLab CI job", () => {
  it("gets an ID token for this server in PACKYARD_ID_TOKEN and pushes the tag's version", () => {
    const snippet = ciSnippet({ provider: "gitlab", ...none }, target);
    expect(snippet.path).toBe(".gitlab-ci.yml");
    const job = parse(snippet.text)["publish:packyard"];
    expect(job.id_tokens).toEqual({ PACKYARD_ID_TOKEN: { aud: "https://packyard.example" } });
    expect(job.variables).toEqual({ PACKYARD_SERVER: "https://packyard.example" });
    expect(job.rules).toEqual([{ if: "$CI_COMMIT_TAG =~ /^v/" }]);
    expect(job.script.at(-1)).toBe(`packyard push acme/widget "\${CI_COMMIT_TAG#v}" dist/*`);
    expect(job).not.toHaveProperty("environment");
  });

  it("runs in the publisher's environment, by the refs it allows", () => {
    const rule = (ref: string) =>
      parse(gitlabSnippet({ provider: "gitlab", ...none, ref }, target).text)["publish:packyard"].rules[0].if;
    expect(rule("refs/tags/v*")).toBe("$CI_COMMIT_TAG =~ /^v.*$/");
    expect(rule("refs/heads/release/1.x")).toBe('$CI_COMMIT_BRANCH == "release/1.x"');
    expect(rule("release/*")).toBe("$CI_COMMIT_REF_NAME =~ /^release\\/.*$/");
    const job = parse(gitlabSnippet({ provider: "gitlab", ...none, environment: "production" }, target).text)[
      "publish:packyard"
    ];
    expect(job.environment).toBe("production");
  });
});
