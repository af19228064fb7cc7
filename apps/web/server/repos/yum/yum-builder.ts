// The YUM format for the repository publisher: one repository per group ("" is the root),
// joined from the fragments stored at upload — never by re-reading packages — into
// checksum-named primary, filelists and other files, a repomd.xml and its signature.
import { signDetachedArmored } from "@packyard/formats/openpgp/index.ts";
import { renderFilelistsXml } from "@packyard/formats/yum/filelists-xml.ts";
import { renderOtherXml } from "@packyard/formats/yum/other-xml.ts";
import { renderPrimaryXml } from "@packyard/formats/yum/primary-xml.ts";
import { buildRepodataFile } from "@packyard/formats/yum/repodata-file.ts";
import { renderRepomd } from "@packyard/formats/yum/repomd-xml.ts";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { FormatBuilder } from "../publisher.ts";

export const yumBuilder: FormatBuilder = {
  format: "yum",
  async build({ db, project, keys, date, published }) {
    const rows = await db
      .selectFrom("yum_package")
      .innerJoin("release_file", "release_file.id", "yum_package.file_id")
      .innerJoin("release", "release.id", "release_file.release_id")
      .select([
        "yum_package.repo_group",
        "yum_package.name",
        "yum_package.epoch",
        "yum_package.version",
        "yum_package.release",
        "yum_package.arch",
        "yum_package.primary_xml",
        "yum_package.filelists_xml",
        "yum_package.other_xml",
      ])
      .where("yum_package.project_id", "=", project.id)
      .where("release.yanked", "=", 0)
      .orderBy("release.created_at", "desc")
      .orderBy("release.id", "desc")
      .execute();
    const everRpm = await db
      .selectFrom("yum_package")
      .select("repo_group")
      .distinct()
      .where("project_id", "=", project.id)
      .execute();
    const groups = [
      ...new Set([...rows.map((r) => r.repo_group), ...published, ...everRpm.map((e) => e.repo_group)]),
    ];
    if (groups.length === 0) return [];
    const { signers } = await keys.active(project);
    const timestamp = Math.floor(date.getTime() / 1000);
    const built = [];
    for (const group of groups) {
      // The same name-epoch-version-release.arch twice: the newest release's build wins.
      const seen = new Set<string>();
      const packages = rows.filter((r) => {
        if (r.repo_group !== group) return false;
        const key = `${r.name}\u0000${r.epoch}\u0000${r.version}\u0000${r.release}\u0000${r.arch}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      // Stable order: an unchanged repository republishes byte-identical files.
      packages.sort(
        (a, b) =>
          (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
          (a.arch < b.arch ? -1 : a.arch > b.arch ? 1 : 0),
      );
      const data = [
        buildRepodataFile("primary", renderPrimaryXml(packages.map((p) => p.primary_xml)), timestamp),
        buildRepodataFile("filelists", renderFilelistsXml(packages.map((p) => p.filelists_xml)), timestamp),
        buildRepodataFile("other", renderOtherXml(packages.map((p) => p.other_xml)), timestamp),
      ];
      const repomd = renderRepomd({ revision: timestamp, entries: data.map((d) => d.entry) });
      const files = new Map<string, Uint8Array>();
      for (const d of data) files.set(d.path, d.bytes);
      const encoder = new TextEncoder();
      files.set("repodata/repomd.xml", encoder.encode(repomd));
      files.set(
        "repodata/repomd.xml.asc",
        encoder.encode(await signDetachedArmored(encoder.encode(repomd), signers)),
      );
      built.push({ name: group, files });
    }
    return built;
  },
};

/** A package file of a YUM group, by its location (yanked releases' packages stay fetchable). */
export async function findYumPackageFile(
  db: Kysely<Database>,
  projectId: string,
  group: string,
  location: string,
) {
  return db
    .selectFrom("yum_package")
    .innerJoin("release_file", "release_file.id", "yum_package.file_id")
    .select(["release_file.sha256", "release_file.size"])
    .where("yum_package.project_id", "=", projectId)
    .where("yum_package.repo_group", "=", group)
    .where("yum_package.location", "=", location)
    .executeTakeFirst();
}
