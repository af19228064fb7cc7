// The contact form in a real browser against the production build: each message of spec §5 shown
// by the browser's own check before anything is posted, the messages going away as the fields are
// corrected, the type chosen from the URL, and a message that reaches the outbox with a
// confirmation for the visitor.
import { readOutbox } from "../test/harness.ts";
import { expect, outboxDir, test } from "./support.ts";

const hydrated = (page: import("@playwright/test").Page) =>
  page.waitForFunction(() =>
    Boolean((window as { __reactRouterDataRouter?: unknown }).__reactRouterDataRouter),
  );

test("each validation message of spec §5 shows in the browser, without posting", async ({
  page,
  consoleErrors: _,
}) => {
  await page.goto("/contact");
  await hydrated(page);
  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") posts.push(request.url());
  });
  const form = page.locator("form").filter({ has: page.getByRole("button", { name: "Send message" }) });

  await form.getByRole("button", { name: "Send message" }).click();
  for (const message of [
    "Name must be at least 2 characters",
    "Please enter a valid email address",
    "Subject must be at least 5 characters",
    "Message must be at least 10 characters",
  ]) {
    await expect(form.getByText(message)).toBeVisible();
  }
  await expect(form.getByLabel("Name")).toHaveAttribute("aria-invalid", "true");

  // Values that are still too short keep their messages; corrected fields lose theirs as you type.
  await form.getByLabel("Name").fill("A");
  await form.getByLabel("Email").fill("ada@");
  await form.getByLabel("Subject").fill("Help");
  await form.getByLabel("Message").fill("Too short");
  await form.getByRole("button", { name: "Send message" }).click();
  await expect(form.getByText("Name must be at least 2 characters")).toBeVisible();
  await expect(form.getByText("Please enter a valid email address")).toBeVisible();
  await expect(form.getByText("Subject must be at least 5 characters")).toBeVisible();
  await expect(form.getByText("Message must be at least 10 characters")).toBeVisible();
  await form.getByLabel("Name").fill("Ada Lovelace");
  await expect(form.getByText("Name must be at least 2 characters")).toHaveCount(0);
  await form.getByLabel("Email").fill("ada@example.com");
  await expect(form.getByText("Please enter a valid email address")).toHaveCount(0);
  expect(posts).toEqual([]);
});

test("a valid message is sent, reaches the outbox and the visitor sees a confirmation", async ({
  page,
  consoleErrors: _,
}) => {
  await page.goto("/contact?type=sales");
  await hydrated(page);
  await expect(page.getByRole("radio", { name: /Sales/ })).toBeChecked();
  await page.getByLabel("Name").fill("Grace Hopper");
  await page.getByLabel("Email").fill("grace@example.com");
  await page.getByRole("radio", { name: /Partnership/ }).check();
  const subject = `Working together ${Date.now().toString(36)}`;
  await page.getByLabel("Subject").fill(subject);
  await page
    .getByLabel("Message")
    .fill("We ship an installer and would like to publish it through Packyard.");
  await page.getByRole("button", { name: "Send message" }).click();

  await expect(
    page.getByRole("heading", { name: "Thank you, Grace Hopper. Your message has been sent." }),
  ).toBeVisible();
  await expect(page.getByText("grace@example.com")).toBeVisible();
  await expect
    .poll(() => readOutbox(outboxDir()).find((m) => m.subject.includes(subject)), { timeout: 5000 })
    .toMatchObject({ subject: `Contact form (Partnership): ${subject}` });

  await page.getByRole("link", { name: "Send another message" }).click();
  await expect(page.getByRole("button", { name: "Send message" })).toBeVisible();
  await expect(page.getByLabel("Name")).toHaveValue("");
});
