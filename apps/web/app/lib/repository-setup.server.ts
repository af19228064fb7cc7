// What a project page shows to install from its repositories: the setup one-liner, the deb822
// source, and the fingerprints of the keys that sign. Read once per page load.
import type { RouterContextProvider } from "react-router";
import { renderDebSources } from "../../server/formats/apt/setup-script.ts";
import { services } from "./session.server.ts";

export interface RepositorySetup {
  owner: string;
  slug: string;
  private: boolean;
  hasDebs: boolean;
  hasRpms: boolean;
  setupCommand: string;
  rpmSetupCommand: string;
  repoFileUrl: string;
  debSources: string;
  keyUrl: string;
  keys: { fingerprint: string; algorithm: string; retireAt: string | null }[];
}

export async function repositorySetup(
  context: Readonly<RouterContextProvider>,
  project: { id: string; name: string; slug: string; visibility: string },
  owner: string,
): Promise<RepositorySetup> {
  const { config, keys, database } = services(context);
  const base = `${config.baseUrl}/dl/${owner}/${project.slug}`;
  const { rows } = await keys.active(project);
  const deb = await database.db
    .selectFrom("deb_package")
    .select("file_id")
    .where("project_id", "=", project.id)
    .executeTakeFirst();
  const rpm = await database.db
    .selectFrom("yum_package")
    .select("file_id")
    .where("project_id", "=", project.id)
    .executeTakeFirst();
  const isPrivate = project.visibility === "private";
  return {
    owner,
    slug: project.slug,
    private: isPrivate,
    hasDebs: Boolean(deb),
    hasRpms: Boolean(rpm),
    rpmSetupCommand: isPrivate
      ? `curl -fsSL -u "token:$TOKEN" ${base}/setup.rpm.sh | sudo PACKYARD_TOKEN="$TOKEN" bash`
      : `curl -fsSL ${base}/setup.rpm.sh | sudo bash`,
    repoFileUrl: `${base}/rpm/${project.slug}.repo`,
    setupCommand: isPrivate
      ? `curl -fsSL -H "Authorization: Bearer $TOKEN" ${base}/setup.deb.sh | sudo PACKYARD_TOKEN="$TOKEN" bash`
      : `curl -fsSL ${base}/setup.deb.sh | sudo bash`,
    debSources: renderDebSources({ baseUrl: config.baseUrl, owner, slug: project.slug }),
    keyUrl: `${base}/gpg.key`,
    keys: rows.map((r) => ({ fingerprint: r.fingerprint, algorithm: r.algorithm, retireAt: r.retire_at })),
  };
}
