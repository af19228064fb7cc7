import { describe, expect, it } from "vitest";
import {
  createTrustedPublisherInput,
  describeTrustedPublisher,
  fullRef,
  GITHUB_ISSUER,
  GITLAB_ISSUER,
  issuerOf,
  mismatch,
  refMatches,
  workflowFile,
} from "./trusted-publishing.ts";

const github = {
  iss: GITHUB_ISSUER,
  repository: "Octo/App",
  workflow_ref: "Octo/App/.github/workflows/release.yml@refs/tags/v1.2.0",
  ref: "refs/tags/v1.2.0",
  environment: "Production",
};
const gitlab = { iss: GITLAB_ISSUER, project_path: "group/sub/project", ref: "main", ref_type: "branch" };
const publisher = (fields: Record<string, unknown>) => ({
  provider: "github" as const,
  issuer: GITHUB_ISSUER,
  repository: "octo/app",
  workflow: null,
  environment: null,
  ref: null,
  ...fields,
});

describe("trusted publisher matching", () => {
  it("reads the full ref and the workflow file of either provider", () => {
    expect(fullRef(github)).toBe("refs/tags/v1.2.0");
    expect(fullRef(gitlab)).toBe("refs/heads/main");
    expect(fullRef({ ...gitlab, ref: "v2", ref_type: "tag" })).toBe("refs/tags/v2");
    expect(fullRef({ iss: "x", ref: "main" })).toBeNull();
    expect(workflowFile(github)).toBe("release.yml");
    expect(workflowFile({ iss: "x", workflow_ref: "octo/app/other/path@main" })).toBeNull();
  });

  it("matches ref patterns against the full ref or the branch or tag name", () => {
    expect(refMatches("refs/tags/v*", github)).toBe(true);
    expect(refMatches("v*", github)).toBe(true);
    expect(refMatches("v1.*", github)).toBe(true);
    expect(refMatches("v2.*", github)).toBe(false);
    expect(refMatches("refs/heads/*", github)).toBe(false);
    expect(refMatches("main", gitlab)).toBe(true);
    expect(refMatches("refs/heads/main", gitlab)).toBe(true);
    expect(refMatches("release/*", { ...gitlab, ref: "release/2.0" })).toBe(true);
    // Dots are literal, not "any character".
    expect(refMatches("v1.2.0", { ...github, ref: "refs/tags/v1x2x0" })).toBe(false);
  });

  it("says which condition a token misses; repositories and environments ignore case", () => {
    expect(mismatch(publisher({}), github)).toBeNull();
    expect(
      mismatch(publisher({ environment: "production", workflow: "release.yml", ref: "v*" }), github),
    ).toBeNull();
    expect(mismatch(publisher({ repository: "octo/other" }), github)).toBe("repository");
    expect(mismatch(publisher({ workflow: "build.yml" }), github)).toBe("workflow");
    expect(mismatch(publisher({ environment: "staging" }), github)).toBe("environment");
    expect(mismatch(publisher({ environment: "staging" }), { ...github, environment: undefined })).toBe(
      "environment",
    );
    expect(mismatch(publisher({ ref: "refs/heads/main" }), github)).toBe("ref");
    expect(mismatch(publisher({ issuer: "https://ghe.example.com/_services/token" }), github)).toBe("issuer");
    const lab = {
      provider: "gitlab" as const,
      issuer: GITLAB_ISSUER,
      repository: "group/sub/project",
      workflow: null,
      environment: null,
      ref: "main",
    };
    expect(mismatch(lab, gitlab)).toBeNull();
    expect(mismatch(lab, { ...gitlab, project_path: "group/project" })).toBe("projectPath");
    // A GitHub token never matches a GitLab publisher of the same path.
    expect(mismatch({ ...lab, issuer: GITHUB_ISSUER }, { ...github, repository: "group/sub/project" })).toBe(
      "projectPath",
    );
  });

  it("validates what a publisher is created with", () => {
    expect(
      createTrustedPublisherInput.parse({ provider: "github", repository: "octo/app", ref: "v*" }),
    ).toEqual({
      provider: "github",
      repository: "octo/app",
      ref: "v*",
    });
    expect(createTrustedPublisherInput.safeParse({ provider: "github", repository: "octo" }).success).toBe(
      false,
    );
    expect(
      createTrustedPublisherInput.safeParse({ provider: "github", repository: "octo/app", workflow: "../x" })
        .success,
    ).toBe(false);
    expect(
      createTrustedPublisherInput.safeParse({ provider: "gitlab", projectPath: "project" }).success,
    ).toBe(false);
    expect(
      createTrustedPublisherInput.safeParse({ provider: "gitlab", projectPath: "g/p", workflow: "a.yml" })
        .success,
    ).toBe(false);
    expect(createTrustedPublisherInput.safeParse({ provider: "bitbucket", repository: "a/b" }).success).toBe(
      false,
    );
    expect(
      createTrustedPublisherInput.parse({
        provider: "gitlab",
        projectPath: "g/p",
        issuer: "https://gitlab.example.com/",
      }),
    ).toMatchObject({ issuer: "https://gitlab.example.com" });
    expect(
      createTrustedPublisherInput.safeParse({
        provider: "gitlab",
        projectPath: "g/p",
        issuer: "https://u:p@x.example",
      }).success,
    ).toBe(false);
    expect(issuerOf({ provider: "gitlab" })).toBe(GITLAB_ISSUER);
    expect(issuerOf({ provider: "github", issuer: "https://ghe.example.com/_services/token" })).toBe(
      "https://ghe.example.com/_services/token",
    );
    expect(
      describeTrustedPublisher({
        provider: "github",
        repository: "octo/app",
        workflow: "release.yml",
        environment: null,
        ref: "v*",
      }),
    ).toBe("GitHub Actions octo/app (release.yml, ref v*)");
  });
});
