// What the dashboard and the release pages show of a project's container images: each image
// with its tags — the digest, what kind of manifest, the platforms of an index, the size of what
// a pull downloads, who pushed and when — and the tags named like a release (a release page's
// `docker pull`). Reads only; the registry's routes are routes.ts.
import { parseManifest, platformName } from "@packyard/formats/oci/manifest.ts";
import type { Kysely } from "kysely";
import type { Database } from "../../platform/db/schema.ts";
import type { BlobStore } from "../../platform/storage/blob-store.ts";

type Db = Kysely<Database>;

export interface ImageTag {
  tag: string;
  digest: string;
  mediaType: string;
  /** An index: the platforms it lists ("linux/arm64/v8"); an image: its own, when known. */
  platforms: string[];
  /** Bytes a pull of one platform downloads at most: the manifest, its config and layers. */
  size: number;
  pushedBy: string | null;
  updatedAt: string;
  /** Pulls of this tag (its manifest fetched by tag), all time. */
  pulls: number;
}

export interface ProjectImage {
  /** "" for the project's default image. */
  image: string;
  /** `{host}/{owner}/{project}[/{image}]`, what `docker pull` takes. */
  reference: string;
  tags: ImageTag[];
  /** Pulls of each platform of the image's indexes (a client choosing it), all time. */
  platformPulls: { platform: string; pulls: number }[];
}

/** Every image of the project with its tags, newest tag first. */
export async function projectImages(
  db: Db,
  blobs: BlobStore,
  project: { id: string; slug: string; username: string },
  baseUrl: string,
): Promise<ProjectImage[]> {
  const host = new URL(baseUrl).host;
  const rows = await db
    .selectFrom("oci_tag")
    .innerJoin("oci_repository", "oci_repository.id", "oci_tag.repository_id")
    .innerJoin("oci_manifest", (join) =>
      join
        .onRef("oci_manifest.repository_id", "=", "oci_tag.repository_id")
        .onRef("oci_manifest.sha256", "=", "oci_tag.sha256"),
    )
    .select([
      "oci_repository.id as repositoryId",
      "oci_repository.name as image",
      "oci_tag.name as tag",
      "oci_tag.sha256",
      "oci_tag.pushed_by",
      "oci_tag.updated_at",
      "oci_manifest.media_type",
      "oci_manifest.size",
    ])
    .where("oci_repository.project_id", "=", project.id)
    .orderBy("oci_repository.name")
    .orderBy("oci_tag.updated_at", "desc")
    .orderBy("oci_tag.name")
    .execute();
  const sizes = new Map<string, number>();
  const blobSize = async (repositoryId: string, sha256: string): Promise<number> => {
    const key = `${repositoryId}:${sha256}`;
    let size = sizes.get(key);
    if (size === undefined) {
      const row = await db
        .selectFrom("oci_manifest_ref")
        .innerJoin("oci_blob", (join) =>
          join
            .onRef("oci_blob.repository_id", "=", "oci_manifest_ref.repository_id")
            .onRef("oci_blob.sha256", "=", "oci_manifest_ref.sha256"),
        )
        .select((eb) => eb.fn.sum<number | string | null>("oci_blob.size").as("bytes"))
        .where("oci_manifest_ref.repository_id", "=", repositoryId)
        .where("oci_manifest_ref.manifest", "=", sha256)
        .where("oci_manifest_ref.kind", "=", "blob")
        .executeTakeFirst();
      size = Number(row?.bytes ?? 0);
      sizes.set(key, size);
    }
    return size;
  };
  const pullRows = await db
    .selectFrom("oci_pull_day")
    .innerJoin("oci_repository", "oci_repository.id", "oci_pull_day.repository_id")
    .select(["oci_repository.name as image", "oci_pull_day.tag", "oci_pull_day.platform"])
    .select((eb) => eb.fn.sum<number | string>("oci_pull_day.pulls").as("pulls"))
    .where("oci_repository.project_id", "=", project.id)
    .groupBy(["oci_repository.name", "oci_pull_day.tag", "oci_pull_day.platform"])
    .execute();
  const tagPulls = new Map<string, number>();
  const platformPulls = new Map<string, Map<string, number>>();
  for (const row of pullRows) {
    const pulls = Number(row.pulls);
    if (row.tag)
      tagPulls.set(
        `${row.image}\u0000${row.tag}`,
        (tagPulls.get(`${row.image}\u0000${row.tag}`) ?? 0) + pulls,
      );
    if (row.platform) {
      const byPlatform = platformPulls.get(row.image) ?? new Map<string, number>();
      byPlatform.set(row.platform, (byPlatform.get(row.platform) ?? 0) + pulls);
      platformPulls.set(row.image, byPlatform);
    }
  }
  const images = new Map<string, ProjectImage>();
  for (const row of rows) {
    let image = images.get(row.image);
    if (!image) {
      image = {
        image: row.image,
        reference: [host, project.username, project.slug, row.image].filter(Boolean).join("/").toLowerCase(),
        tags: [],
        platformPulls: [...(platformPulls.get(row.image) ?? new Map<string, number>())]
          .map(([platform, pulls]) => ({ platform, pulls }))
          .sort((a, b) => b.pulls - a.pulls || a.platform.localeCompare(b.platform)),
      };
      images.set(row.image, image);
    }
    let platforms: string[] = [];
    let size = Number(row.size) + (await blobSize(row.repositoryId, row.sha256));
    if (row.media_type.includes("index") || row.media_type.includes("list")) {
      // An index is small: its platforms are read from its bytes; its size is its largest platform's.
      const bytes = await readSmall(blobs, row.sha256);
      const parsed = bytes ? parseManifest(bytes, row.media_type) : undefined;
      platforms = (parsed?.manifests ?? []).flatMap((m) => (m.platform ? [platformName(m.platform)] : []));
      let largest = 0;
      for (const child of parsed?.manifests ?? [])
        largest = Math.max(largest, child.size + (await blobSize(row.repositoryId, child.digest.slice(7))));
      size = Number(row.size) + largest;
    }
    image.tags.push({
      tag: row.tag,
      digest: `sha256:${row.sha256}`,
      mediaType: row.media_type,
      platforms,
      size,
      pushedBy: row.pushed_by,
      updatedAt: row.updated_at,
      pulls: tagPulls.get(`${row.image}\u0000${row.tag}`) ?? 0,
    });
  }
  return [...images.values()];
}

async function readSmall(blobs: BlobStore, sha256: string): Promise<Uint8Array | undefined> {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of await blobs.open(sha256)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } catch {
    return undefined;
  }
}

/** The images with a tag named like the release's version: a release page's `docker pull` lines. */
export async function releaseImages(
  db: Db,
  blobs: BlobStore,
  project: { id: string; slug: string; username: string },
  version: string,
  baseUrl: string,
): Promise<{ reference: string; digest: string; platforms: string[] }[]> {
  const tagged = await db
    .selectFrom("oci_tag")
    .innerJoin("oci_repository", "oci_repository.id", "oci_tag.repository_id")
    .select("oci_tag.name")
    .where("oci_repository.project_id", "=", project.id)
    .where("oci_tag.name", "=", version)
    .executeTakeFirst();
  if (!tagged) return [];
  return (await projectImages(db, blobs, project, baseUrl)).flatMap((image) =>
    image.tags
      .filter((t) => t.tag === version)
      .map((t) => ({ reference: image.reference, digest: t.digest, platforms: t.platforms })),
  );
}
