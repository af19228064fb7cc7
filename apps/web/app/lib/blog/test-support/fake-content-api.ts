// A fake of the content service's query API at its HTTP boundary, for tests: a node:http server
// on 127.0.0.1 that answers GET /v{apiVersion}/data/query/{dataset}?query=…&$param=… the way the
// real service does ({ query, result, ms }), for the queries of queries.ts, over posts and
// categories held in memory. It records every request, and can be told to fail the next ones.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { blogQueries } from "../queries.ts";
import type { BlogCategory, BlogPost } from "../types.ts";

export interface ReceivedQuery {
  method: string;
  path: string;
  query: string;
  params: Record<string, unknown>;
  authorization: string | undefined;
}

export interface FakeContentApi {
  url: string;
  received: ReceivedQuery[];
  posts: BlogPost[];
  categories: BlogCategory[];
  /** Answer the next requests with these statuses, one each, before answering normally. */
  failNext(...statuses: number[]): void;
  /** Answer every request with this status until cleared with null. */
  failAlways(status: number | null): void;
  close(): Promise<void>;
}

const byDateDesc = (a: BlogPost, b: BlogPost) => Date.parse(b.publishedAt) - Date.parse(a.publishedAt);

function evaluate(
  query: string,
  params: Record<string, unknown>,
  posts: BlogPost[],
  categories: BlogCategory[],
) {
  const sorted = [...posts].sort(byDateDesc);
  const offset = Number(params.offset ?? 0);
  const end = Number(params.end ?? 0);
  switch (query) {
    case blogQueries.posts:
      return sorted.slice(offset, end);
    case blogQueries.postBySlug:
      return sorted.find((p) => p.slug.current === params.slug) ?? null;
    case blogQueries.categories:
      return [...categories].sort((a, b) => a.title.localeCompare(b.title));
    case blogQueries.postsByCategory:
      return sorted
        .filter((p) => p.categories.some((c) => c.slug.current === params.category))
        .slice(offset, end);
    case blogQueries.featuredPosts:
      return sorted.filter((p) => p.featured === true).slice(0, Number(params.limit));
    case blogQueries.nonFeaturedPosts:
      return sorted.filter((p) => p.featured === false || p.featured === undefined).slice(offset, end);
    case blogQueries.postSlugs:
      return sorted.map((p) => ({
        slug: p.slug.current,
        publishedAt: p.publishedAt,
        updatedAt: p._updatedAt,
      }));
    default:
      return undefined;
  }
}

export async function startFakeContentApi(
  options: { dataset?: string; apiVersion?: string; posts?: BlogPost[]; categories?: BlogCategory[] } = {},
): Promise<FakeContentApi> {
  const dataset = options.dataset ?? "production";
  const apiVersion = options.apiVersion ?? "2025-02-19";
  const received: ReceivedQuery[] = [];
  const failures: number[] = [];
  let always: number | null = null;
  const api = {
    received,
    posts: options.posts ?? [],
    categories: options.categories ?? [],
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const params: Record<string, unknown> = {};
    for (const [name, value] of url.searchParams) {
      if (name.startsWith("$")) params[name.slice(1)] = JSON.parse(value);
    }
    const query = url.searchParams.get("query") ?? "";
    received.push({
      method: req.method ?? "",
      path: url.pathname,
      query,
      params,
      authorization: req.headers.authorization,
    });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const failure = always ?? failures.shift();
    if (failure !== undefined) {
      send(failure, { error: { description: `fake failure ${failure}` } });
      return;
    }
    if (req.method !== "GET" || url.pathname !== `/v${apiVersion}/data/query/${dataset}`) {
      send(404, { error: { description: `no route ${req.method} ${url.pathname}` } });
      return;
    }
    const result = evaluate(query, params, api.posts, api.categories);
    if (result === undefined) {
      send(400, { error: { description: "unknown query", query } });
      return;
    }
    send(200, { query, result, ms: 1 });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(api, {
    url: `http://127.0.0.1:${port}`,
    failNext: (...statuses: number[]) => {
      failures.push(...statuses);
    },
    failAlways: (status: number | null) => {
      always = status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
