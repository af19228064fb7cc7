// YUM (.rpm): an adapter over the files beside it (decision 075). An .rpm goes to a group (default
// the repository root), is signed with the project's newest key and read once for its repodata
// fragments; the signed file is what is stored and served under /dl/{user}/{project}/rpm/.

import type { PackageFormat } from "../format.ts";
import { createYumBuilder } from "./builder.ts";
import { createYumRepositorySource } from "./import.ts";
import { parseYumGroup, type SignedRpm, signStagedRpm, yumRecord } from "./ingest.ts";
import { projectsWithStaleRpms, queueRpmResign, resignRpmsJob, rpmVerifyingKeys } from "./resign-rpms.ts";
import { resolveYumFile } from "./serve.ts";
import { renderRpmSetupScript } from "./setup-script.ts";

/** A signed .rpm and the fingerprint of the key that signed it (yum_package.signed_by). */
export interface IngestedRpm {
  rpm: SignedRpm;
  signer: string;
}

export const yumFormat: PackageFormat<string, IngestedRpm> = {
  id: "yum",
  fileKind: "rpm",
  contentType: "application/x-rpm",
  recognises: (filename) => /\.rpm$/i.test(filename),
  routePrefix: "rpm",
  setupScript: renderRpmSetupScript,
  resolve: resolveYumFile,
  targetFields: { group: "YUM group of an .rpm (default: the repository root)" },
  parseTarget: (field) => parseYumGroup(field("group")),
  // The original is not stored (its signed copy is staged anew): no digest beyond sha256.
  uploadDigests: { digests: [] },
  async ingest({ blobs, staged, maxBytes, signingKey }) {
    if (!signingKey) throw new Error("an .rpm upload needs the project's signing key");
    const key = await signingKey();
    const rpm = await signStagedRpm(blobs, staged, key, maxBytes);
    return { parsed: { rpm, signer: key.fingerprint }, restaged: rpm.staged };
  },
  async store(tx, file, { rpm, signer }, group) {
    const record = yumRecord(rpm, file, group);
    await tx
      .insertInto("yum_package")
      .values({ file_id: file.id, project_id: file.projectId, ...record, signed_by: signer })
      .execute();
  },
  describe: (group) => group,
  async listed(db, releaseId) {
    const rows = await db
      .selectFrom("yum_package")
      .innerJoin("release_file", "release_file.id", "yum_package.file_id")
      .select(["yum_package.file_id", "yum_package.repo_group"])
      .where("release_file.release_id", "=", releaseId)
      .execute();
    return new Map(rows.map((row) => [row.file_id, row.repo_group]));
  },
  promotedTarget: (current, input) => input.group ?? current,
  // The signed file stays as it is: only its group changes.
  retarget: async (_blobs, file, group) => async (tx) => {
    await tx.updateTable("yum_package").set({ repo_group: group }).where("file_id", "=", file.id).execute();
  },
  builder: (budget) => createYumBuilder(budget),
  // After a rotation, the .rpm files are re-signed by the successor (decision 030).
  jobs: (deps) => [resignRpmsJob(deps)],
  resign: {
    queue: queueRpmResign,
    staleProjects: projectsWithStaleRpms,
    keysStillServed: async (deps, project) =>
      (await rpmVerifyingKeys(deps, project)).map((key) => key.fingerprint),
  },
  importSource: {
    kind: "yum-repository",
    create(input, deps) {
      if (input.kind !== "yum-repository") throw new Error(`not a YUM import: ${input.kind}`);
      return createYumRepositorySource(input, deps);
    },
  },
};
