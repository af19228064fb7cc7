// APT (.deb): an adapter over the files beside it (decision 075). A .deb goes to a suite and
// component (default stable/main), is read once for its Packages stanza, and is served from the
// pool under /dl/{user}/{project}/deb/.

import type { PackageFormat } from "../format.ts";
import { createAptBuilder } from "./builder.ts";
import { createAptRepositorySource } from "./import.ts";
import { type AptTarget, debRecord, type ParsedDeb, parseAptTarget, parseDeb } from "./ingest.ts";
import { resolveAptFile } from "./serve.ts";
import { renderDebSetupScript } from "./setup-script.ts";

export const aptFormat: PackageFormat<AptTarget, ParsedDeb> = {
  id: "apt",
  fileKind: "deb",
  contentType: "application/vnd.debian.binary-package",
  recognises: (filename) => /\.deb$/i.test(filename),
  routePrefix: "deb",
  setupScript: renderDebSetupScript,
  resolve: resolveAptFile,
  targetFields: {
    distribution: "APT suite of a .deb (default `stable`)",
    component: "APT component of a .deb (default `main`)",
  },
  parseTarget: (field) => parseAptTarget(field("distribution"), field("component")),
  // A .deb's Packages stanza lists md5 and sha1 beside sha256 whatever its size (decision 047:
  // not sha512).
  uploadDigests: { keepDigests: ["sha1", "md5"] },
  async ingest({ staged }) {
    return { parsed: await parseDeb(staged.read()) };
  },
  async store(tx, file, deb, target) {
    const record = debRecord(deb, file, target);
    await tx
      .insertInto("deb_package")
      .values({ file_id: file.id, project_id: file.projectId, ...record })
      .execute();
  },
  describe: (target) => `${target.suite}/${target.component}`,
  async listed(db, releaseId) {
    const rows = await db
      .selectFrom("deb_package")
      .innerJoin("release_file", "release_file.id", "deb_package.file_id")
      .select(["deb_package.file_id", "deb_package.suite", "deb_package.component"])
      .where("release_file.release_id", "=", releaseId)
      .execute();
    return new Map(rows.map((row) => [row.file_id, { suite: row.suite, component: row.component }]));
  },
  promotedTarget: (current, input) =>
    parseAptTarget(input.distribution ?? current.suite, input.component ?? current.component),
  async retarget(blobs, file, target) {
    // A new component changes the pool path, so the stanza is rendered again from the package.
    const { suite, component, pool_path, stanza } = debRecord(
      await parseDeb(blobs.read(file.sha256)),
      file,
      target,
    );
    return async (tx) => {
      await tx
        .updateTable("deb_package")
        .set({ suite, component, pool_path, stanza })
        .where("file_id", "=", file.id)
        .execute();
    };
  },
  builder: (budget) => createAptBuilder(budget),
  importSource: {
    kind: "apt-repository",
    create(input, deps) {
      if (input.kind !== "apt-repository") throw new Error(`not an APT import: ${input.kind}`);
      return createAptRepositorySource(input, deps);
    },
  },
};
