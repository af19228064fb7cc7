// GitHub Releases as an import source (decision 028): the REST API's release list, a page of
// 100 at a time following the Link header, and each asset's bytes from the assets endpoint with
// `Accept: application/octet-stream` (GitHub answers 302 to a signed download URL, followed
// here; the Authorization header is dropped when the redirect leaves the API's origin). Every
// request goes through the importers' address guard (http-fetch.ts guardedFetch, decision 055):
// a GitHub Enterprise Server on a private address needs WEBHOOK_ALLOW_PRIVATE.
//
// - tag → version: a leading "v" before a digit is dropped ("v1.2.0" → "1.2.0", the version the
//   packages inside carry); any other tag is the version as it is. A tag Packyard refuses as a
//   version fails that release (the runner checks it).
// - name → title, body → notes, published_at orders the import (oldest first).
// - Prereleases are imported unless left out; drafts only when asked (they need a token).
// - Assets whose upload never finished (state other than "uploaded") are not listed.
import { guardedFetch } from "./http-fetch.ts";
import { ImportError, type ImportSource, type SourceFile, type SourceRelease } from "./source.ts";

export interface GithubReleasesOptions {
  /** The API's base URL (GITHUB_API_URL): https://api.github.com, or a GitHub Enterprise one. */
  apiUrl: string;
  /** owner/repo */
  repository: string;
  token?: string;
  includePrereleases: boolean;
  includeDrafts: boolean;
  /** WEBHOOK_ALLOW_PRIVATE: the API may be on a loopback, link-local or private address. */
  allowPrivate?: boolean;
  /** For tests: the fetch to use (default: guardedFetch). */
  fetch?: typeof fetch;
}

interface GithubAsset {
  id: number;
  name: string;
  size?: number;
  state?: string;
}

interface GithubRelease {
  id: number;
  tag_name: string;
  name: string | null;
  body: string | null;
  draft: boolean;
  prerelease: boolean;
  created_at?: string | null;
  published_at?: string | null;
  assets?: GithubAsset[];
}

/** The most pages read (100 releases each): a bound against a Link header that never ends. */
const MAX_PAGES = 100;

/** "v1.2.0" → "1.2.0"; any other tag as it is. */
export function versionFromTag(tag: string): string {
  return /^[vV]\d/.test(tag) ? tag.slice(1) : tag;
}

/** The URL of rel="next" in a Link header, if any. */
export function nextLink(header: string | null): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(",")) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (match) return match[1];
  }
  return undefined;
}

export class GithubReleasesSource implements ImportSource {
  readonly #options: GithubReleasesOptions;
  readonly #fetch: typeof fetch;
  readonly #base: string;

  constructor(options: GithubReleasesOptions) {
    this.#options = options;
    this.#fetch = options.fetch ?? guardedFetch({ allowPrivate: options.allowPrivate ?? false });
    this.#base = options.apiUrl.replace(/\/+$/, "");
  }

  #headers(accept: string): Record<string, string> {
    const headers: Record<string, string> = {
      accept,
      "x-github-api-version": "2022-11-28",
      "user-agent": "Packyard-importer",
    };
    if (this.#options.token) headers.authorization = `Bearer ${this.#options.token}`;
    return headers;
  }

  async #get(url: string, accept: string, signal: AbortSignal, subject: string): Promise<Response> {
    let response: Response;
    try {
      response = await this.#fetch(url, { headers: this.#headers(accept), signal, redirect: "follow" });
    } catch (error) {
      if (signal.aborted) throw error;
      // Refused by the address guard, or cut off by its deadline: said as it is.
      if (error instanceof ImportError) throw error;
      throw new ImportError(
        "SOURCE_UNREACHABLE",
        `GitHub could not be reached: ${(error as Error).message}`,
        subject,
      );
    }
    if (response.ok) return response;
    await response.body?.cancel().catch(() => {});
    throw this.#failure(response, subject);
  }

  #failure(response: Response, subject: string): ImportError {
    const { status, headers } = response;
    const repository = this.#options.repository;
    const rateLimited =
      (status === 403 || status === 429) &&
      (headers.get("x-ratelimit-remaining") === "0" || headers.has("retry-after"));
    if (rateLimited) {
      const reset = Number(headers.get("x-ratelimit-reset"));
      const when =
        Number.isFinite(reset) && reset > 0 ? ` until ${new Date(reset * 1000).toISOString()}` : "";
      return new ImportError(
        "SOURCE_AUTH_FAILED",
        `GitHub's API rate limit is used up${when}${
          this.#options.token ? "" : "; a token raises the limit from 60 to 5,000 requests an hour"
        }. Run the import again later.`,
        subject,
      );
    }
    if (status === 404 || status === 410)
      return new ImportError(
        "SOURCE_NOT_FOUND",
        this.#options.token
          ? `GitHub has no repository ${repository} that this token can read (404)`
          : `GitHub has no public repository ${repository} (404); for a private one, give a token`,
        subject,
      );
    if (status === 401)
      return new ImportError(
        "SOURCE_AUTH_FAILED",
        "GitHub refused the token (401): it is wrong or expired",
        subject,
      );
    if (status === 403)
      return new ImportError(
        "SOURCE_AUTH_FAILED",
        `GitHub refused access to ${repository} (403): the token lacks the permission to read it`,
        subject,
      );
    return new ImportError("SOURCE_UNREACHABLE", `GitHub answered ${status} for ${subject}`, subject);
  }

  async listReleases(signal: AbortSignal): Promise<SourceRelease[]> {
    const { repository } = this.#options;
    const [owner, repo] = repository.split("/") as [string, string];
    const prefix = `${this.#base}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;
    let url: string | undefined = `${prefix}/releases?per_page=100`;
    const found: GithubRelease[] = [];
    for (let page = 0; url && page < MAX_PAGES; page++) {
      const response = await this.#get(url, "application/vnd.github+json", signal, repository);
      let body: unknown;
      try {
        body = await response.json();
      } catch {
        throw new ImportError("SOURCE_INVALID", "GitHub's release list is not JSON", repository);
      }
      if (!Array.isArray(body))
        throw new ImportError("SOURCE_INVALID", "GitHub's release list is not a list", repository);
      for (const item of body) {
        if (!isRelease(item))
          throw new ImportError(
            "SOURCE_INVALID",
            "GitHub's release list has an entry without a tag",
            repository,
          );
        found.push(item);
      }
      url = nextLink(response.headers.get("link"));
    }
    return found
      .filter((r) => (r.draft ? this.#options.includeDrafts && Boolean(this.#options.token) : true))
      .filter((r) => this.#options.includePrereleases || !r.prerelease)
      .map((r) => this.#release(prefix, r));
  }

  #release(prefix: string, release: GithubRelease): SourceRelease {
    const files: SourceFile[] = (release.assets ?? [])
      .filter((asset) => asset.state === undefined || asset.state === "uploaded")
      .map((asset) => ({
        filename: asset.name,
        size: typeof asset.size === "number" ? asset.size : undefined,
        open: async (signal: AbortSignal) => {
          const response = await this.#get(
            `${prefix}/releases/assets/${asset.id}`,
            "application/octet-stream",
            signal,
            asset.name,
          );
          if (!response.body)
            throw new ImportError("SOURCE_INVALID", `GitHub sent no bytes for ${asset.name}`, asset.name);
          return typeof asset.size === "number"
            ? checkSize(response.body, asset.size, asset.name)
            : response.body;
        },
      }));
    return {
      version: versionFromTag(release.tag_name),
      title: release.name?.trim() || null,
      notes: release.body?.trim() ? release.body : null,
      publishedAt: release.published_at ?? release.created_at ?? null,
      files,
    };
  }
}

function isRelease(value: unknown): value is GithubRelease {
  const r = value as GithubRelease;
  return typeof r === "object" && r !== null && typeof r.tag_name === "string" && r.tag_name !== "";
}

/** The stream, ending with CHECKSUM_MISMATCH if it is not exactly `size` bytes (GitHub's size). */
function checkSize(
  body: ReadableStream<Uint8Array>,
  size: number,
  filename: string,
): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > size)
          controller.error(
            new ImportError(
              "CHECKSUM_MISMATCH",
              `${filename} is larger than the ${size} bytes GitHub states`,
              filename,
            ),
          );
        else controller.enqueue(chunk);
      },
      flush(controller) {
        if (seen !== size)
          controller.error(
            new ImportError(
              "CHECKSUM_MISMATCH",
              `${filename} has ${seen} bytes where GitHub states ${size} (the download was cut short?)`,
              filename,
            ),
          );
      },
    }),
  );
}
