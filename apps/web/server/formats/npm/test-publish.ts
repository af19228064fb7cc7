// What `npm publish` sends for a small scoped package, for tests that need a version in a
// registry without driving the npm client: the packument with one version, its integrity and
// shasum, and the tarball (package.json and index.js) as a base64 attachment.
import { createHash } from "node:crypto";
import { tarGz } from "../pypi/test-distributions.ts";

/** `registry`: the project's registry URL, ending in a slash. */
export function npmPublishRequest(registry: string, name: string, version: string) {
  const tarball = tarGz([
    ["package/package.json", Buffer.from(JSON.stringify({ name, version }))],
    ["package/index.js", Buffer.from("module.exports = 1;\n")],
  ]);
  const file = `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
  const body = JSON.stringify({
    _id: name,
    name,
    "dist-tags": { latest: version },
    versions: {
      [version]: {
        name,
        version,
        dist: {
          integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
          shasum: createHash("sha1").update(tarball).digest("hex"),
          tarball: `${registry}${name}/-/${file}`,
        },
      },
    },
    _attachments: { [file]: { data: tarball.toString("base64"), length: tarball.length } },
  });
  return { url: `${registry}${name.replace("/", "%2f")}`, body, size: tarball.length, file };
}
