// An organization's verified domains in a real browser (issue 43, docs/sso.md): an owner adds a
// domain on the organization's settings, sees the TXT record to publish, is told the record is not
// there yet, publishes it (in the DNS server this test starts, which Packyard asks through
// DNS_RESOLVER) and verifies; then removes another. No axe violations, light and dark; nothing
// wider than a phone. SCREENSHOT_DIR: the settings at 1280 and 375 px, light and dark.
import { startDnsServer, type TestDnsServer } from "../test/dns-server.ts";
import {
  appOrigin,
  expect,
  noAxeViolations,
  overflows,
  shots,
  signUpAndOnboard,
  test,
  uniqueEmail,
} from "./support.ts";

let dns: TestDnsServer;

test.beforeAll(async () => {
  dns = await startDnsServer(Number(process.env.PACKYARD_E2E_DNS_PORT));
});
test.afterAll(async () => {
  await dns?.close();
});

test("an owner adds a domain, publishes its TXT record and verifies it on the organization's settings", async ({
  page,
  consoleErrors: _,
}) => {
  const stamp = Date.now().toString(36);
  await signUpAndOnboard(page, { email: uniqueEmail("domains"), name: "Dora", username: `dora-${stamp}` });
  const slug = `acme-${stamp}`;
  expect(
    (
      await page.request.post("/api/v1/orgs", { headers: appOrigin(), data: { slug, name: "Acme" } })
    ).status(),
  ).toBe(201);

  await page.goto(`/orgs/${slug}/settings`);
  await expect(page.getByRole("heading", { name: "Domains" })).toBeVisible();
  await expect(page.getByText("No domains yet.")).toBeVisible();

  const domain = `${stamp}.acme.example`;
  await page.getByLabel("Domain").fill(domain.toUpperCase());
  await page.getByRole("button", { name: "Add domain" }).click();
  const row = page.getByTestId("org-domain").filter({ hasText: domain });
  await expect(row).toBeVisible();
  await expect(row.getByText("Not verified")).toBeVisible();
  const name = (await row.locator("code").first().textContent())!;
  const value = (await row.locator("code").nth(1).textContent())!;
  expect(name).toBe(`_packyard-verification.${domain}`);
  expect(value).toMatch(/^packyard-verification=[0-9a-f]{32}$/);

  // Not published yet: the owner is told so, and nothing changes.
  await row.getByRole("button", { name: "Verify" }).click();
  await expect(row.getByText(/No TXT record .* yet/)).toBeVisible();
  await expect(row.getByText("Not verified")).toBeVisible();
  await noAxeViolations(page);
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await overflows(page)).toBe(false);
  await page.setViewportSize({ width: 1280, height: 900 });
  await shots(page, "org-domains-pending");

  dns.setTxt(name, [value]);
  await row.getByRole("button", { name: "Verify" }).click();
  await expect(row.getByText("Verified", { exact: true })).toBeVisible();
  await expect(row.getByRole("button", { name: "Verify" })).toHaveCount(0);

  // Another, then given up.
  await page.getByLabel("Domain").fill(`other-${domain}`);
  await page.getByRole("button", { name: "Add domain" }).click();
  const other = page.getByTestId("org-domain").filter({ hasText: `other-${domain}` });
  await expect(other).toBeVisible();
  await noAxeViolations(page);
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await overflows(page)).toBe(false);
  await page.setViewportSize({ width: 1280, height: 900 });
  await shots(page, "org-domains");
  await other.getByRole("button", { name: "Remove" }).click();
  await expect(other).toHaveCount(0);
  await expect(page.getByTestId("org-domain")).toHaveCount(1);
});
