// Which source reads an import: one case per kind of the contract's union (decision 028).
import type { ImportSourceInput } from "@packyard/contract";
import { createAptRepositorySource } from "./apt-repository.ts";
import { GithubReleasesSource } from "./github-releases.ts";
import { guardedFetch } from "./http-fetch.ts";
import type { ImportSource } from "./source.ts";
import { createYumRepositorySource } from "./yum-repository.ts";

export interface SourceDeps {
  /** GITHUB_API_URL: https://api.github.com, or a GitHub Enterprise Server's /api/v3. */
  githubApiUrl: string;
  /** WEBHOOK_ALLOW_PRIVATE: sources may be on loopback, link-local and private addresses. */
  allowPrivate?: boolean;
  /** For tests: the fetch sources use. */
  fetch?: typeof fetch;
}

export function createImportSource(input: ImportSourceInput, deps: SourceDeps): ImportSource {
  // Every request of every source through the address guard and its deadlines (decision 055).
  const fetch = deps.fetch ?? guardedFetch({ allowPrivate: deps.allowPrivate ?? false });
  switch (input.kind) {
    case "github-releases":
      return new GithubReleasesSource({
        apiUrl: deps.githubApiUrl,
        repository: input.repository,
        token: input.token,
        includePrereleases: input.includePrereleases,
        includeDrafts: input.includeDrafts,
        fetch,
      });
    case "apt-repository":
      return createAptRepositorySource(input, { fetch });
    case "yum-repository":
      return createYumRepositorySource(input, { fetch });
  }
}
