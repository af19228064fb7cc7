// A fake GitHub REST API on 127.0.0.1, at the HTTP boundary the GitHub Releases importer uses:
// GET /repos/{owner}/{repo}/releases (pages with a Link header, as GitHub sends them) and GET
// /repos/{owner}/{repo}/releases/assets/{id} with `Accept: application/octet-stream`, answered
// 302 to a second server on another port (GitHub's signed download host), which serves the
// bytes. Private repositories answer 404 without the right token and 401 with a wrong one, as
// GitHub does; a repository can be rate limited; an asset can answer 500.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeAsset {
  name: string;
  bytes: Uint8Array;
  /** The download host answers 500 for it. */
  broken?: boolean;
  /** The size the API states, when it differs from the bytes (a cut-off download). */
  statedSize?: number;
}

export interface FakeRelease {
  tag: string;
  name?: string | null;
  body?: string | null;
  draft?: boolean;
  prerelease?: boolean;
  publishedAt: string;
  assets: FakeAsset[];
}

export interface FakeRepository {
  releases: FakeRelease[];
  /** Readable only with `Authorization: Bearer <token>`. */
  token?: string;
  rateLimited?: boolean;
}

export interface FakeGithub {
  /** The API's base URL (GITHUB_API_URL). */
  url: string;
  repositories: Map<string, FakeRepository>;
  /** Requests seen, by host: "api" or "download", with their Authorization header. */
  requests: { host: "api" | "download"; path: string; authorization: string | undefined }[];
  /** The most releases one page holds (GitHub: 100). */
  maxPerPage: number;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

export async function startFakeGithub(): Promise<FakeGithub> {
  const repositories = new Map<string, FakeRepository>();
  const requests: FakeGithub["requests"] = [];
  const assets = new Map<number, { repo: string; asset: FakeAsset }>();
  let nextAssetId = 1000;
  const assetId = (repo: string, asset: FakeAsset) => {
    for (const [id, entry] of assets) if (entry.asset === asset) return id;
    const id = nextAssetId++;
    assets.set(id, { repo, asset });
    return id;
  };

  const download = createServer((req, res) => {
    requests.push({ host: "download", path: req.url ?? "", authorization: req.headers.authorization });
    const id = Number(/^\/download\/(\d+)/.exec(req.url ?? "")?.[1]);
    const entry = assets.get(id);
    if (!entry) return send(res, 404, { message: "Not Found" });
    if (entry.asset.broken) return send(res, 500, { message: "Server Error" });
    res.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": entry.asset.bytes.length,
    });
    res.end(Buffer.from(entry.asset.bytes));
  });
  const downloadPort = await listen(download);

  const fake: FakeGithub = {
    url: "",
    repositories,
    requests,
    maxPerPage: 100,
    async close() {
      await Promise.all([api, download].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };

  const api = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", fake.url);
    requests.push({
      host: "api",
      path: `${url.pathname}${url.search}`,
      authorization: req.headers.authorization,
    });
    const match = /^\/repos\/([^/]+)\/([^/]+)\/releases(?:\/assets\/(\d+))?$/.exec(url.pathname);
    if (!match) return send(res, 404, { message: "Not Found" });
    const name = `${decodeURIComponent(match[1]!)}/${decodeURIComponent(match[2]!)}`;
    const repo = repositories.get(name);
    if (repo?.rateLimited) {
      return send(
        res,
        403,
        { message: "API rate limit exceeded" },
        {
          "x-ratelimit-remaining": "0",
          "x-ratelimit-reset": "1893456000",
        },
      );
    }
    const auth = req.headers.authorization;
    if (repo?.token && auth !== undefined && auth !== `Bearer ${repo.token}`)
      return send(res, 401, { message: "Bad credentials" });
    if (!repo || (repo.token && auth !== `Bearer ${repo.token}`))
      return send(res, 404, { message: "Not Found" });
    const authorized = repo.token !== undefined;

    if (match[3]) {
      const entry = assets.get(Number(match[3]));
      if (!entry || entry.repo !== name) return send(res, 404, { message: "Not Found" });
      if (req.headers.accept !== "application/octet-stream") return send(res, 200, { id: Number(match[3]) });
      res.writeHead(302, {
        location: `http://127.0.0.1:${downloadPort}/download/${match[3]}?X-Amz-Signature=abc`,
      });
      return res.end();
    }

    // Drafts are listed only to a token with push access, as GitHub does.
    const visible = repo.releases.filter((r) => !r.draft || (authorized && auth !== undefined));
    // GitHub lists newest first.
    const sorted = [...visible].sort((a, b) => (a.publishedAt < b.publishedAt ? 1 : -1));
    const perPage = Math.min(Number(url.searchParams.get("per_page") ?? 30), fake.maxPerPage);
    const page = Number(url.searchParams.get("page") ?? 1);
    const items = sorted.slice((page - 1) * perPage, page * perPage);
    const headers: Record<string, string> = {};
    if (page * perPage < sorted.length) {
      const next = new URL(url);
      next.searchParams.set("page", String(page + 1));
      const last = new URL(url);
      last.searchParams.set("page", String(Math.ceil(sorted.length / perPage)));
      headers.link = `<${next}>; rel="next", <${last}>; rel="last"`;
    }
    send(
      res,
      200,
      items.map((r, index) => ({
        id: index + 1,
        tag_name: r.tag,
        name: r.name ?? null,
        body: r.body ?? null,
        draft: Boolean(r.draft),
        prerelease: Boolean(r.prerelease),
        created_at: r.publishedAt,
        published_at: r.draft ? null : r.publishedAt,
        assets: r.assets.map((asset) => {
          const id = assetId(name, asset);
          return {
            id,
            name: asset.name,
            size: asset.statedSize ?? asset.bytes.length,
            state: "uploaded",
            url: `${fake.url}/repos/${name}/releases/assets/${id}`,
            browser_download_url: `https://github.com/${name}/releases/download/${r.tag}/${asset.name}`,
          };
        }),
      })),
      headers,
    );
  });
  const port = await listen(api);
  fake.url = `http://127.0.0.1:${port}`;
  return fake;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}
