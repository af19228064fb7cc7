// A project's Downloads page in a real browser (decisions 033 and 083): downloads made by curl
// and a browser, and an install by apt (told by their User-Agent), appear apart in the chart
// after hydration and in the table view with the API's numbers and the day's machines, with no
// axe violation; a release page lists its files' installs and downloads; the project page shows
// the README badges (version, installs, downloads) and their Markdown. Fits 375 px. With
// SCREENSHOT_DIR (or PACKYARD_SHOTS_DIR) set, screenshots of the pages (1280 and 375 px, light
// and dark) are saved there.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { appOrigin, expect, signUpAndOnboard, test, uniqueEmail, useColorScheme } from "./support.ts";

const CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

async function shots(page: Page, name: string) {
  const dir = process.env.SCREENSHOT_DIR ?? process.env.PACKYARD_SHOTS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    for (const [label, width] of [
      ["1280", 1280],
      ["375", 375],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(dir, `${name}-${label}-${colorScheme}.png`), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 720 });
}

test("the Downloads page charts the project's installs and downloads with the API's numbers; badges on the project page", async ({
  page,
  consoleErrors: _,
}) => {
  const username = `dl-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("dl"), name: "Dee Ell", username });
  const created = await page.request.post("/api/v1/projects", {
    headers: appOrigin(),
    data: { slug: "meter", name: "Meter", visibility: "public" },
  });
  expect(created.status()).toBe(201);
  for (const [version, filename] of [
    ["1.0.0", "meter-linux-amd64"],
    ["1.1.0", "meter-1.1.0.tar.gz"],
  ]) {
    const put = await page.request.put(`/api/v1/projects/meter/releases/${version}/files/${filename}`, {
      headers: appOrigin(),
      data: Buffer.alloc(4096, "m"),
    });
    expect(put.status()).toBe(201);
  }
  const download = async (version: string, filename: string, userAgent: string, times: number) => {
    for (let i = 0; i < times; i++) {
      const res = await page.request.get(`/dl/${username}/meter/releases/${version}/${filename}`, {
        headers: { "user-agent": userAgent },
      });
      expect(res.status()).toBe(200);
      await res.body();
    }
  };
  await download("1.1.0", "meter-1.1.0.tar.gz", "curl/7.88.1", 3);
  await download("1.1.0", "meter-1.1.0.tar.gz", CHROME, 2);
  await download("1.0.0", "meter-linux-amd64", "Debian APT-HTTP/1.3 (2.6.1)", 1);

  const api = await page.request.get("/api/v1/projects/meter/stats?by=client");
  expect(api.status()).toBe(200);
  const { stats } = await api.json();
  // apt's file is an install; curl's and the browser's are downloads. One address, three clients.
  expect(stats.total).toMatchObject({ installs: 1, downloads: 5, machines: 3 });

  await page.goto("/projects/meter");
  await expect(page.getByRole("heading", { level: 1, name: "Meter" })).toBeVisible();
  const badges = page.getByTestId("readme-badges");
  await expect(badges.getByTestId("badge-markdown-version")).toHaveText(
    new RegExp(
      `^\\[!\\[Latest version\\]\\(http.*/dl/${username}/meter/badge/version\\.svg\\)\\]\\(.*/releases/${username}/meter\\)$`,
    ),
  );
  await expect(badges.getByRole("button", { name: "Copy the Markdown of the version badge" })).toBeVisible();
  const image = badges.getByRole("img", { name: "Latest version" });
  await expect(image).toBeVisible();
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  await expect(badges.getByTestId("badge-markdown-installs")).toHaveText(
    new RegExp(`^\\[!\\[Installs this month\\]\\(http.*/dl/${username}/meter/badge/installs\\.svg\\)\\]`),
  );
  const installsBadge = badges.getByRole("img", { name: "Installs this month" });
  await expect
    .poll(() => installsBadge.evaluate((img: HTMLImageElement) => img.naturalWidth))
    .toBeGreaterThan(0);
  await shots(page, "project");

  // The project's tabs lead there, and mark the page they show.
  const tabs = page.getByRole("navigation", { name: "Project" });
  await expect(tabs.getByRole("link", { name: "Overview" })).toHaveAttribute("aria-current", "page");
  await tabs.getByRole("link", { name: "Downloads" }).click();
  await expect(page).toHaveURL(/\/projects\/meter\/downloads$/);
  await expect(tabs.getByRole("link", { name: "Downloads" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("heading", { level: 1, name: "Downloads" })).toBeVisible();
  await expect(page.getByTestId("stat-installs")).toContainText("1");
  await expect(page.getByTestId("stat-downloads")).toContainText("5");
  await expect(page.getByTestId("stat-machines")).toContainText("3");
  // The chart is drawn in the browser, after hydration: two series, installs and downloads.
  const chart = page.getByTestId("downloads-chart");
  await expect(chart.locator("svg.recharts-surface")).toBeVisible();
  await expect(chart.locator(".recharts-area")).toHaveCount(2);
  await expect(
    page.getByRole("img", {
      name: /Installs and downloads per day from .*: 1 install and 5 downloads in all/,
    }),
  ).toBeVisible();

  // The client table and the API agree, row for row.
  const clientRows = page.getByTestId("downloads-by-client").locator("tbody tr");
  await expect(clientRows).toHaveCount(stats.rows.length);
  const labels: Record<string, string> = { curl: "curl/wget", browser: "Browser", apt: "apt" };
  type Row = { key: string; installs: number; downloads: number; machines: number };
  for (const [index, row] of (stats.rows as Row[]).entries()) {
    const cells = clientRows.nth(index).locator("td");
    await expect(clientRows.nth(index).getByTestId("row-key")).toHaveText(labels[row.key]!);
    await expect(cells.nth(0)).toHaveText(String(row.installs));
    await expect(cells.nth(1)).toHaveText(String(row.downloads));
    await expect(cells.nth(2)).toHaveText(String(row.machines));
  }
  expect((stats.rows as Row[]).find((r) => r.key === "apt")).toMatchObject({ installs: 1, downloads: 0 });
  await expect(page.getByTestId("downloads-by-version").locator("tbody tr").first()).toContainText("1.1.0");
  await expect(page.getByTestId("downloads-by-file").locator("tbody tr").first()).toContainText(
    "meter-1.1.0.tar.gz",
  );

  // The table view of the chart: today's row carries them all, and its three machines.
  await page.getByRole("tab", { name: "Table" }).click();
  const today = page.getByTestId("downloads-by-day").locator("tbody tr").first().locator("td");
  await expect(today.nth(0)).toHaveText("1");
  await expect(today.nth(1)).toHaveText("5");
  await expect(today.nth(2)).toHaveText("3");
  await page.getByRole("tab", { name: "Chart" }).click();

  await page.getByRole("link", { name: "90 days" }).click();
  await expect(page).toHaveURL(/\?days=90$/);
  await expect(page.getByRole("link", { name: "90 days" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByTestId("stat-downloads")).toContainText("5");

  // axe (WCAG A and AA, best practices) finds nothing, light and dark, chart drawn.
  for (const colorScheme of ["light", "dark"] as const) {
    await useColorScheme(page, colorScheme);
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual(
      [],
    );
  }
  await page.emulateMedia({ colorScheme: "light" });

  await page.setViewportSize({ width: 375, height: 800 });
  // The chart follows the new width once its resize observer fires; the page never scrolls sideways.
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await page.setViewportSize({ width: 1280, height: 720 });
  await shots(page, "downloads");

  await page.goto("/projects/meter/releases/1.1.0");
  const perFile = page.getByTestId("release-downloads").locator("tbody tr");
  await expect(perFile).toHaveCount(1);
  await expect(perFile.first().getByTestId("row-key")).toHaveText("meter-1.1.0.tar.gz");
  await expect(perFile.first().locator("td").nth(0)).toHaveText("0");
  await expect(perFile.first().locator("td").nth(1)).toHaveText("5");
  await shots(page, "release");
});
