// The blog in a real browser, against the production build on its embedded posts: the index
// with its featured posts, a category filter, a post opened from a card, the query cache
// answering a page seen before without asking the server again, and the Atom feed.
import { expect, test } from "./support.ts";

test("a visitor browses the blog: index, a category, a post, back again, and the feed", async ({
  page,
  consoleErrors: _,
}) => {
  const dataRequests: string[] = [];
  page.on("request", (request) => {
    // The blog routes' own data requests (the root's session data is fetched separately).
    const url = new URL(request.url());
    if (
      url.pathname.endsWith(".data") &&
      url.searchParams.get("_routes")?.startsWith("routes/_marketing/blog/")
    )
      dataRequests.push(request.url());
  });

  await page.goto("/blog/");
  await expect(page.getByRole("heading", { level: 1, name: "Notes on shipping packages" })).toBeVisible();
  await expect(page).toHaveTitle("Blog · Packyard");
  const featured = page.getByTestId("featured-posts").getByTestId("post-card");
  await expect(featured).toHaveCount(4);
  const listed = page.getByTestId("post-list").getByTestId("post-card");
  expect(await listed.count()).toBeGreaterThan(0);
  expect(await listed.count()).toBeLessThanOrEqual(12);
  const categories = page.getByRole("navigation", { name: "Blog categories" });
  await expect(categories.getByRole("link", { name: "All posts" })).toHaveAttribute("aria-current", "page");

  // Filter by a category: only its posts, the filter marked as current.
  await categories.getByRole("link", { name: "Signing and access" }).click();
  await expect(page).toHaveURL(/\/blog\/\?category=security$/);
  await expect(page.getByRole("heading", { level: 1, name: "Signing and access" })).toBeVisible();
  await expect(categories.getByRole("link", { name: "Signing and access" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  await expect(page.getByTestId("featured-posts")).toHaveCount(0);
  const inCategory = page.getByTestId("post-list").getByTestId("post-card");
  await expect(inCategory).toHaveCount(3);
  for (const card of await inCategory.all()) await expect(card).toContainText("Signing and access");
  expect(dataRequests).toHaveLength(1);

  // Open a post from its card.
  await page
    .getByRole("link", { name: "Rotating a repository signing key without breaking a single install" })
    .click();
  await expect(page).toHaveURL(/\/blog\/rotating-signing-keys$/);
  await expect(
    page.getByRole("heading", {
      level: 1,
      name: "Rotating a repository signing key without breaking a single install",
    }),
  ).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: /Phase one: both keys sign/ })).toBeVisible();
  await expect(page.getByText(/\d+ min read/).first()).toBeVisible();
  await expect(page.getByTestId("recent-posts").getByTestId("post-card")).toHaveCount(3);
  await expect(page).toHaveTitle(/Rotating APT and YUM signing keys/);

  // Back to the category: fresh in the query cache, so the server is not asked again.
  const before = dataRequests.length;
  await page
    .getByRole("navigation", { name: "Breadcrumb" })
    .getByRole("link", { name: "Signing and access" })
    .click();
  await expect(page.getByRole("heading", { level: 1, name: "Signing and access" })).toBeVisible();
  expect(dataRequests).toHaveLength(before);

  // A missing post is the not-found view, with 404 on a full load.
  const missing = await page.goto("/blog/no-such-post");
  expect(missing?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "Post not found" })).toBeVisible();

  // The Atom feed lists the posts.
  const feed = await page.request.get("/blog/feed.xml");
  expect(feed.status()).toBe(200);
  expect(feed.headers()["content-type"]).toBe("application/atom+xml; charset=utf-8");
  const xml = await feed.text();
  expect(xml).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
  expect(xml.split("<entry>").length - 1).toBeGreaterThanOrEqual(10);
  expect(xml).toContain("<title>Rotating a repository signing key without breaking a single install</title>");
});
