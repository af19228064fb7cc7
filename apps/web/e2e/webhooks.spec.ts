// Webhooks in a real browser: add one pointing at a receiver started here, copy its secret
// (shown once), send a test that arrives signed with it, see it in the delivery log, redeliver
// it, and find no axe violations on the page with the log open, light and dark.
import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import AxeBuilder from "@axe-core/playwright";
import { appOrigin, expect, signUpAndOnboard, test, uniqueEmail, useColorScheme } from "./support.ts";

let receiver: Server;
let receiverUrl = "";
const received: { headers: IncomingHttpHeaders; body: string }[] = [];

test.beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as { port: number };
  receiverUrl = `http://127.0.0.1:${port}/packyard`;
});
test.afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
});

test("add a webhook, copy its secret, test it, read the delivery log and redeliver", async ({
  page,
  context,
  consoleErrors: _,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signUpAndOnboard(page, {
    email: uniqueEmail("hooks"),
    name: "Hook Keeper",
    username: `hooks-${Date.now().toString(36)}`,
  });
  const project = await page.request.post("/api/v1/projects", {
    headers: appOrigin(),
    data: { slug: "relay", name: "Relay" },
  });
  expect(project.status()).toBe(201);

  await page.goto("/projects/relay");
  await page.getByRole("link", { name: "Webhooks" }).click();
  await expect(page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
  await expect(page.getByText("No webhooks yet")).toBeVisible();

  // The form checks before posting: an event is required.
  await page.getByLabel("Payload URL").fill(receiverUrl);
  for (const event of ["release.yanked", "release.unyanked", "file.deleted", "key.rotated"])
    await page.getByRole("checkbox", { name: new RegExp(`^${event.replace(".", "\\.")}`) }).uncheck();
  await page.getByLabel("Description (optional)").fill("Deploy staging");
  await page.getByRole("button", { name: "Add webhook" }).click();

  const secret = page.getByTestId("secret-value");
  await expect(secret).toHaveText(/^whsec_[A-Za-z0-9_-]{43}$/);
  const value = (await secret.textContent())!;
  await page.getByRole("button", { name: "Copy to clipboard" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);

  const card = page.getByTestId("webhook");
  await expect(card).toContainText(receiverUrl);
  await expect(card).toContainText("Deploy staging");
  await expect(card.getByRole("list", { name: "Events" })).toHaveText(
    /release\.created\s*file\.uploaded\s*repository\.published/,
  );

  await card.getByRole("button", { name: "Send test" }).click();
  await expect(page.getByText(/^Test delivered: HTTP 200 in \d+ ms$/)).toBeVisible();
  expect(received).toHaveLength(1);
  const ping = received[0]!;
  expect(ping.headers["packyard-event"]).toBe("ping");
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(ping.headers["packyard-signature"]))!;
  expect(v1).toBe(createHmac("sha256", value).update(`${t}.${ping.body}`).digest("hex"));

  // After a reload the secret is gone; the delivery is in the log.
  await page.reload();
  await expect(page.getByTestId("secret-value")).toHaveCount(0);
  const delivery = card.getByTestId("delivery");
  await expect(delivery).toHaveCount(1);
  await expect(delivery).toContainText("ping");
  await expect(delivery).toContainText("Delivered");
  await expect(delivery).toContainText("HTTP 200");
  await delivery.getByText("Details").click();
  await expect(delivery).toContainText('"event": "ping"');
  await delivery.getByRole("button", { name: "Redeliver" }).click();
  await expect(page.getByText(/^Redelivered: HTTP 200/)).toBeVisible();
  expect(received).toHaveLength(2);
  expect(JSON.parse(received[1]!.body).id).toBe(JSON.parse(ping.body).id);
  await expect(card.getByTestId("delivery")).toHaveCount(2);

  // A toast lies over the page's own elements while it shows, and axe would measure their
  // contrast against it: checked once the toasts have gone.
  await expect(page.locator("[data-sonner-toast]")).toHaveCount(0, { timeout: 15_000 });
  for (const colorScheme of ["light", "dark"] as const) {
    await useColorScheme(page, colorScheme);
    const results = await new AxeBuilder({ page }).exclude("[data-sonner-toaster]").analyze();
    expect(
      results.violations.map(
        (v) => `${colorScheme}: ${v.id} ${v.help} ${v.nodes.map((n) => n.target).join(" ")}`,
      ),
    ).toEqual([]);
  }
});
