// APT (.deb): an adapter over publishing/apt/ (decision 075). A .deb goes to a suite and
// component (default stable/main), is read once for its Packages stanza, and is served from the
// pool under /dl/{user}/{project}/deb/.
import { createAptRepositorySource } from "../../imports/apt-repository.ts";
import { createAptBuilder } from "../../publishing/apt/apt-builder.ts";
import {
  type AptTarget,
  debRecord,
  type ParsedDeb,
  parseAptTarget,
  parseDeb,
} from "../../publishing/apt/ingest.ts";
import { renderDebSetupScript } from "../../publishing/apt/setup-script.ts";
import type { PackageFormat } from "../format.ts";

export const aptFormat: PackageFormat<AptTarget, ParsedDeb> = {
  id: "apt",
  fileKind: "deb",
  contentType: "application/vnd.debian.binary-package",
  recognises: (filename) => /\.deb$/i.test(filename),
  routePrefix: "deb",
  setupScript: renderDebSetupScript,
  targetFields: {
    distribution: "APT suite of a .deb (default `stable`)",
    component: "APT component of a .deb (default `main`)",
  },
  parseTarget: (field) => parseAptTarget(field("distribution"), field("component")),
  // A .deb's Packages stanza lists md5 and sha1 beside sha256 whatever its size (decision 047:
  // not sha512).
  uploadDigests: { keepDigests: ["sha1", "md5"] },
  async ingest({ staged }) {
    return { stored: staged, parsed: await parseDeb(staged.read()) };
  },
  async store(tx, file, deb, target) {
    const record = debRecord(deb, file, target);
    await tx
      .insertInto("deb_package")
      .values({ file_id: file.id, project_id: file.projectId, ...record })
      .execute();
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
