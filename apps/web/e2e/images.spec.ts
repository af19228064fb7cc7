// Container images in a real browser: a project's Images tab before anything is pushed (how to
// log in and push), then with an image of two tags and an index of two platforms pushed through
// the registry at /v2/ (its digests, platforms, sizes, who pushed, the pull line to copy); the
// release page of the version an image is tagged with shows its `docker pull …@sha256:…`. No axe
// violations, light and dark; nothing wider than a phone. SCREENSHOT_DIR: both pages at 1280 and
// 375 px, light and dark.
import { createHash } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
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

const sha = (bytes: string) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

/** Pushes through the registry with a key, as a client would. */
function registry(request: APIRequestContext, key: string, name: string) {
  const auth = { authorization: `Bearer ${key}` };
  return {
    async blob(bytes: string) {
      const res = await request.post(`/v2/${name}/blobs/uploads/?digest=${sha(bytes)}`, {
        headers: auth,
        data: bytes,
      });
      expect(res.status()).toBe(201);
      return { digest: sha(bytes), size: Buffer.byteLength(bytes) };
    },
    async manifest(reference: string, body: string, type: string) {
      const res = await request.put(`/v2/${name}/manifests/${reference}`, {
        headers: { ...auth, "content-type": type },
        data: body,
      });
      expect(res.status()).toBe(201);
      return sha(body);
    },
  };
}

const IMAGE = "application/vnd.oci.image.manifest.v1+json";

function image(config: { digest: string; size: number }, layer: { digest: string; size: number }) {
  return JSON.stringify({
    schemaVersion: 2,
    mediaType: IMAGE,
    config: { mediaType: "application/vnd.oci.image.config.v1+json", ...config },
    layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar+gzip", ...layer }],
  });
}

test("the Images tab lists pushed images with their tags, and the release page shows the pull line", async ({
  page,
  consoleErrors: _,
}) => {
  const username = `imager-${Date.now().toString(36)}`;
  await signUpAndOnboard(page, { email: uniqueEmail("imager"), name: "Imager", username });
  expect(
    (
      await page.request.post("/api/v1/projects", {
        headers: appOrigin(),
        data: { slug: "widget", name: "Widget", visibility: "public" },
      })
    ).status(),
  ).toBe(201);
  const key = (await (
    await page.request.post("/api/v1/keys", {
      headers: appOrigin(),
      data: { name: "registry", access: "publish", projects: ["widget"] },
    })
  ).json()) as { key: { key: string } };

  await page.goto("/projects/widget");
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Images" }).click();
  await expect(page.getByRole("heading", { name: "Container images", level: 1 })).toBeVisible();
  await expect(page.getByText("No images yet")).toBeVisible();

  const tool = registry(page.request, key.key.key, `${username}/widget`);
  const config = await tool.blob('{"architecture":"amd64","os":"linux"}');
  const layer = await tool.blob("x".repeat(48_000));
  const body = image(config, layer);
  const digest = await tool.manifest("1.4.0", body, IMAGE);
  await tool.manifest("latest", body, IMAGE);
  const agent = registry(page.request, key.key.key, `${username}/widget/agent`);
  const agentConfig = await agent.blob("{}");
  const amd = image(agentConfig, await agent.blob("amd64 layer".repeat(900)));
  const arm = image(agentConfig, await agent.blob("arm64 layer".repeat(700)));
  const index = JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.index.v1+json",
    manifests: [
      {
        mediaType: IMAGE,
        digest: await agent.manifest(sha(amd), amd, IMAGE),
        size: amd.length,
        platform: { os: "linux", architecture: "amd64" },
      },
      {
        mediaType: IMAGE,
        digest: await agent.manifest(sha(arm), arm, IMAGE),
        size: arm.length,
        platform: { os: "linux", architecture: "arm64", variant: "v8" },
      },
    ],
  });
  await agent.manifest("1.4.0", index, "application/vnd.oci.image.index.v1+json");
  const file = await page.request.put("/api/v1/projects/widget/releases/1.4.0/files/widget-1.4.0.tar.gz", {
    headers: { authorization: `Bearer ${key.key.key}` },
    data: "widget archive",
  });
  expect(file.status()).toBe(201);

  await page.reload();
  const cards = page.getByTestId("image-card");
  await expect(cards).toHaveCount(2);
  await expect(cards.first()).toContainText(`/${username}/widget`);
  await expect(cards.first()).toContainText("2 tags");
  await expect(cards.nth(1)).toContainText("linux/arm64/v8");
  await expect(page.getByText(`docker pull`, { exact: false }).first()).toBeVisible();
  await expect(page.locator("code", { hasText: `@${digest}` })).toHaveCount(2);
  await noAxeViolations(page);
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await overflows(page)).toBe(false);
  await page.setViewportSize({ width: 1280, height: 900 });
  await shots(page, "project-images");

  await page.goto(`/releases/${username}/widget/1.4.0`);
  await expect(page.getByRole("heading", { name: "Container images" })).toBeVisible();
  await expect(page.locator("code", { hasText: `widget@${digest}` })).toBeVisible();
  await noAxeViolations(page);
  await page.setViewportSize({ width: 375, height: 800 });
  expect(await overflows(page)).toBe(false);
  await page.setViewportSize({ width: 1280, height: 900 });
  await shots(page, "release-images");
});
