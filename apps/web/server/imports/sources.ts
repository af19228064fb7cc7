// Which source reads an import: one per kind of the contract's union (decision 028). GitHub
// Releases is read here; an existing repository by its package format (formats/registry.ts).
import type { ImportSourceInput } from "@packyard/contract";
import { formats } from "../formats/registry.ts";
import { GithubReleasesSource } from "./github-releases.ts";
import { guardedFetch } from "./http-fetch.ts";
import type { ImportSource } from "./source.ts";

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
  if (input.kind === "github-releases")
    return new GithubReleasesSource({
      apiUrl: deps.githubApiUrl,
      repository: input.repository,
      token: input.token,
      includePrereleases: input.includePrereleases,
      includeDrafts: input.includeDrafts,
      fetch,
    });
  const source = formats.find((format) => format.importSource?.kind === input.kind)?.importSource;
  if (!source) throw new Error(`no format imports ${input.kind}`);
  return source.create(input, { fetch });
}
