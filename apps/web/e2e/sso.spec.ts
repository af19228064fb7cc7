// Single sign-on in a real browser (issue 43, docs/sso.md), with a real SAML identity provider the
// test starts (test/saml-idp.ts: samlify, its own keys). An owner of a Pro organization with a
// verified domain adds the IdP on the organization's settings by pasting its metadata, copies the
// ACS URL, maps an IdP group to a role and creates a SCIM token. Then someone new types their work
// email on /auth/signin, is offered "Continue with Acme SSO", signs in at the IdP, is posted back,
// chooses a username and lands as a member with the mapped role. No axe violations, light and
// dark; nothing wider than a phone. SCREENSHOT_DIR: the settings and the sign-in offer at 1280 and
// 375 px, light and dark.
import { execFileSync } from "node:child_process";
import { startDnsServer, type TestDnsServer } from "../test/dns-server.ts";
import { startSamlIdp, type TestSamlIdp } from "../test/saml-idp.ts";
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
let idp: TestSamlIdp;

test.beforeAll(async () => {
  dns = await startDnsServer(Number(process.env.PACKYARD_E2E_DNS_PORT));
  idp = await startSamlIdp();
});
test.afterAll(async () => {
  await dns?.close();
  await idp?.stop();
});

test("an owner sets up SAML on the dashboard and a new member signs in through it", async ({
  page,
  browser,
  consoleErrors: _,
}) => {
  const stamp = Date.now().toString(36);
  await signUpAndOnboard(page, { email: uniqueEmail("sso-owner"), name: "Olga", username: `olga-${stamp}` });
  const slug = `acme-${stamp}`;
  const domain = `${stamp}.acme.example`;
  expect(
    (
      await page.request.post("/api/v1/orgs", { headers: appOrigin(), data: { slug, name: "Acme" } })
    ).status(),
  ).toBe(201);

  // Below Pro, the card says single sign-on is a Pro feature.
  await page.goto(`/orgs/${slug}/settings`);
  await expect(page.getByTestId("sso-plan")).toContainText("Pro plan");

  execFileSync(
    process.execPath,
    ["server/cli.ts", "users", "set-plan", "--username", slug, "--plan", "pro"],
    {
      env: { ...process.env, DATA_DIR: process.env.PACKYARD_E2E_DATA_DIR! },
      stdio: "pipe",
    },
  );
  const claimed = await page.request.post(`/api/v1/orgs/${slug}/domains`, {
    headers: appOrigin(),
    data: { domain },
  });
  const { record } = ((await claimed.json()) as { domain: { record: { name: string; value: string } } })
    .domain;
  dns.setTxt(record.name, [record.value]);
  expect(
    (
      await page.request.post(`/api/v1/orgs/${slug}/domains/${domain}/verify`, { headers: appOrigin() })
    ).status(),
  ).toBe(200);

  await page.goto(`/orgs/${slug}/settings`);
  const card = page.getByTestId("sso-card");
  await expect(card.getByRole("heading", { name: "Single sign-on" })).toBeVisible();
  // Metadata that cannot be used: said inline.
  await card.getByLabel("IdP metadata XML").fill("<EntityDescriptor/>");
  await card.getByRole("button", { name: "Add provider" }).click();
  await expect(card.getByTestId("sso-error")).toBeVisible();
  await card.getByLabel("IdP metadata XML").fill(idp.metadata);
  await card.getByRole("button", { name: "Add provider" }).click();
  const provider = card.getByTestId("sso-provider");
  await expect(provider).toBeVisible();
  await expect(provider.getByText("SAML 2.0")).toBeVisible();
  await expect(provider.getByText(/\/api\/auth\/sso\/saml2\/sp\/acs\//)).toBeVisible();

  await card.getByLabel("Roles from IdP groups").fill("qa-team = publisher");
  await card.getByRole("button", { name: "Save sign-in settings" }).click();
  await expect(page.getByText("Sign-in settings saved")).toBeVisible();
  await card.getByRole("button", { name: "Create SCIM token" }).click();
  await expect(card.getByTestId("scim-secret")).toContainText("/scim/v2");

  await noAxeViolations(page);
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await overflows(page)).toBe(false);
  await page.setViewportSize({ width: 1280, height: 900 });
  await shots(page, "org-sso");

  // Someone new, in another browser: their work email offers the organization's sign-in.
  const context = await browser.newContext({ baseURL: new URL(page.url()).origin });
  const visitor = await context.newPage();
  const email = `sam@${domain}`;
  idp.addUser({ email, name: "Sam Smith", groups: ["everyone", "qa-team"] });
  await visitor.goto("/auth/signin");
  await visitor.getByLabel("Email").fill(email);
  const offer = visitor.getByTestId("sso-offer");
  await expect(offer.getByRole("button", { name: "Continue with Acme SSO" })).toBeVisible();
  await noAxeViolations(visitor);
  await visitor.setViewportSize({ width: 375, height: 800 });
  expect(await overflows(visitor)).toBe(false);
  await visitor.setViewportSize({ width: 1280, height: 900 });
  await shots(visitor, "signin-sso");

  await offer.getByRole("button", { name: "Continue with Acme SSO" }).click();
  await expect(visitor).toHaveURL(new RegExp(`^${idp.url}/sso`));
  await visitor.getByRole("button", { name: "Sign in as Sam Smith" }).click();
  // New here: Packyard asks for a username first.
  await expect(visitor).toHaveURL(/\/onboarding/);
  await visitor.getByLabel("Full name").fill("Sam Smith");
  await visitor.getByLabel("Username").fill(`sam-${stamp}`);
  await visitor.getByRole("button", { name: "Continue" }).click();
  await expect(visitor).toHaveURL(/\/dashboard/);

  const members = await page.request.get(`/api/v1/orgs/${slug}/members`);
  const list = ((await members.json()) as { members: { username: string; role: string }[] }).members;
  expect(list.find((member) => member.username === `sam-${stamp}`)?.role).toBe("publisher");
  await context.close();
});
