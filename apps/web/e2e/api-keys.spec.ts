// API keys in a real browser: create one, copy its secret, see it listed with its expiry, use it,
// delete it. And the CLI's loopback flow: /auth/generate-token hands a token to a program
// listening on 127.0.0.1.
import { createServer, type Server } from "node:http";
import { expect, signUpAndOnboard, test, uniqueEmail } from "./support.ts";

const baseUrl = () => process.env.PACKYARD_E2E_URL!;

test("create an API key, copy it, see it listed with its expiry, use it and delete it", async ({
  page,
  context,
  consoleErrors: _,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signUpAndOnboard(page, {
    email: uniqueEmail("keys"),
    name: "Key Keeper",
    username: `keys-${Date.now().toString(36)}`,
  });
  await page.goto("/api-keys");
  await expect(page.getByRole("heading", { name: "API keys", level: 1 })).toBeVisible();
  await expect(page.getByText("No API keys")).toBeVisible();

  await page.getByLabel("Name").fill("GitHub Actions");
  await page.getByLabel("Expires").selectOption("30");
  await page.getByRole("radio", { name: /^Read/ }).check();
  await page.getByRole("button", { name: "Create key" }).click();

  // The secret, once, with a copy button.
  const secret = page.getByTestId("secret-value");
  await expect(secret).toHaveText(/^pky_[A-Za-z]{64}$/);
  const key = (await secret.textContent())!;
  await page.getByRole("button", { name: "Copy to clipboard" }).click();
  await expect(page.getByText("Copied to clipboard!")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

  // Listed with its first characters, scope, access, last use and expiry label.
  const row = page.getByRole("listitem", { name: "GitHub Actions" });
  await expect(row).toContainText(key.slice(0, 6));
  await expect(row).toContainText("All projects");
  await expect(row).toContainText("Read only");
  await expect(row).toContainText("Never used");
  await expect(row.getByTestId("key-expiry")).toHaveText("Expires in 30 days");

  // It works as a bearer token.
  const listed = await fetch(`${baseUrl()}/api/v1/projects`, { headers: { authorization: `Bearer ${key}` } });
  expect(listed.status).toBe(200);

  // After a reload the secret is gone for good, and the key shows its last use.
  await page.reload();
  await expect(page.getByTestId("secret-value")).toHaveCount(0);
  await expect(page.getByText(key)).toHaveCount(0);
  await expect(row).toContainText("Last used");

  // Delete, after confirming.
  await row.getByRole("button", { name: "Delete GitHub Actions" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Delete this API key?" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Delete key" }).click();
  await expect(page.getByText("Deleted “GitHub Actions”")).toBeVisible();
  await expect(row).toHaveCount(0);
  await expect(page.getByText("No API keys")).toBeVisible();
  const refused = await fetch(`${baseUrl()}/api/v1/projects`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(refused.status).toBe(401);
});

test("the CLI's loopback flow: Authorize sends a working token to 127.0.0.1", async ({
  page,
  consoleErrors: _,
}) => {
  // A stand-in for the packyard CLI waiting for its token.
  const received: URL[] = [];
  const server: Server = createServer((req, res) => {
    received.push(new URL(req.url ?? "/", "http://127.0.0.1"));
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>packyard CLI</title><p>You can close this tab.</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  try {
    const username = `cli-${Date.now().toString(36)}`;
    await signUpAndOnboard(page, { email: uniqueEmail("cli"), name: "Cli User", username });
    const callback = `http://127.0.0.1:${port}/callback`;
    await page.goto(`/auth/generate-token?${new URLSearchParams({ callback, state: "state-123" })}`);
    await expect(page.getByRole("heading", { name: "Authorize the packyard CLI" })).toBeVisible();
    await expect(page.getByText(`127.0.0.1:${port}`)).toBeVisible();
    await page.getByRole("button", { name: "Authorize" }).click();

    await expect(page.getByText("You can close this tab.")).toBeVisible();
    // (The browser may also ask the little server for a favicon.)
    const hits = received.filter((u) => u.pathname === "/callback");
    expect(hits).toHaveLength(1);
    const hit = hits[0]!;
    expect(hit.searchParams.get("state")).toBe("state-123");
    const token = hit.searchParams.get("token")!;
    expect(token).toMatch(/^pky_[A-Za-z]{64}$/);
    const created = await fetch(`${baseUrl()}/api/v1/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ slug: "from-cli", name: "From the CLI" }),
    });
    expect(created.status).toBe(201);

    // A callback to anywhere else is refused on the page.
    await page.goto(
      `/auth/generate-token?${new URLSearchParams({ callback: "https://evil.example/cb", state: "x" })}`,
    );
    await expect(page.getByRole("heading", { name: "This link can't be used" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Authorize" })).toHaveCount(0);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
