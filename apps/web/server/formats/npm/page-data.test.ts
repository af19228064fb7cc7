import { describe, expect, it } from "vitest";
import { provenanceOf } from "./page-data.ts";

describe("a version's provenance", () => {
  it("links a GitHub Actions run and commit from the kept claims", () => {
    const claims = {
      iss: "https://token.actions.githubusercontent.com",
      repository: "acme/sdk",
      workflow_ref: "acme/sdk/.github/workflows/release.yml@refs/tags/v1.2.0",
      ref: "refs/tags/v1.2.0",
      sha: "0123456789abcdef0123456789abcdef01234567",
      run_id: "4242",
    };
    expect(provenanceOf(JSON.stringify(claims))).toEqual({
      repository: "acme/sdk",
      workflow: "release.yml",
      ref: "refs/tags/v1.2.0",
      sha: claims.sha,
      commitUrl: "https://github.com/acme/sdk/commit/0123456789abcdef0123456789abcdef01234567",
      runUrl: "https://github.com/acme/sdk/actions/runs/4242",
    });
  });

  it("links a GitLab pipeline on the issuer's own host", () => {
    const claims = {
      iss: "https://gitlab.example.com",
      project_path: "group/sdk",
      ref: "main",
      sha: "89abcdef0123456789abcdef0123456789abcdef",
      pipeline_id: "77",
      ci_config_ref_uri: "gitlab.example.com/group/sdk//.gitlab-ci.yml@refs/heads/main",
    };
    expect(provenanceOf(JSON.stringify(claims))).toEqual({
      repository: "group/sdk",
      workflow: ".gitlab-ci.yml",
      ref: "main",
      sha: claims.sha,
      commitUrl: "https://gitlab.example.com/group/sdk/-/commit/89abcdef0123456789abcdef0123456789abcdef",
      runUrl: "https://gitlab.example.com/group/sdk/-/pipelines/77",
    });
  });

  it("is none without claims, with unreadable ones, or without a repository", () => {
    expect(provenanceOf(null)).toBeNull();
    expect(provenanceOf("{not json")).toBeNull();
    expect(provenanceOf(JSON.stringify({ iss: "https://token.actions.githubusercontent.com" }))).toBeNull();
  });
});
