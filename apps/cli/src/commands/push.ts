// packyard push OWNER/PROJECT VERSION FILE…: creates the release when needed, streams each file,
// checks that the server stored exactly what was sent, and prints where it is and how to install
// it. Safe to re-run: a file already in the release with the same contents counts as pushed, so
// a retry after a dropped connection (or a re-run CI job) never makes a duplicate.
import { createReadStream, readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { Readable } from "node:stream";
import type { PackyardApi, UploadTarget } from "../api.ts";
import { type Command, stringOption } from "../command.ts";
import { readText } from "../context.ts";
import {
  createReleaseInput,
  filenameProblem,
  type Project,
  type ReleaseFile,
  releaseVersion,
} from "../contract.ts";
import { CliError, exitCodes, usageError } from "../errors.ts";
import { formatBytes } from "../output.ts";
import { type Progress, progressBar } from "../progress.ts";
import { parseProjectRef, projectKey, requireProject } from "../project-ref.ts";
import { checkStoredFile, type LocalFile, sha256OfFile } from "../stored-file-check.ts";

interface PushedFile {
  filename: string;
  size: number;
  sha256: string;
  kind: ReleaseFile["kind"];
  url: string;
  /** "uploaded" now, or "present": an identical file was already in the release. */
  status: "uploaded" | "present";
  /** How the stored file was checked against the local one. */
  verifiedBy: "sha256" | "rpm-header";
}

export const pushCommand: Command = {
  usage: "push OWNER/PROJECT VERSION FILE…",
  summary: "Upload files to a release, creating the release when needed",
  details: [
    "Each file is streamed, then checked against the server's sha256 (an .rpm, which Packyard",
    "signs on upload, by its header and payload). Re-running is safe: identical files already in",
    "the release count as pushed; a file of the same name with other contents is a conflict (exit 5).",
  ],
  options: {
    distribution: { type: "string", value: "D", description: "APT suite for .deb files (default stable)" },
    component: { type: "string", value: "C", description: "APT component for .deb files (default main)" },
    group: {
      type: "string",
      value: "G",
      description: "YUM group for .rpm files (default: the repository root)",
    },
    title: { type: "string", value: "T", description: "Release title (set or changed)" },
    notes: {
      type: "string",
      value: "FILE",
      description: "Release notes, Markdown, read from FILE (- for stdin)",
    },
  },
  args: { min: 3 },
  async run(context, [projectArg = "", version = "", ...paths], options) {
    const ref = parseProjectRef(projectArg, { ownerRequired: true });
    context.actingFor(ref.owner!);
    const versionCheck = releaseVersion.safeParse(version);
    if (!versionCheck.success) {
      throw usageError(`"${version}" is not a release version: ${versionCheck.error.issues[0]?.message}`);
    }
    const notesFile = stringOption(options, "notes");
    const details = createReleaseInput.safeParse({
      version,
      title: stringOption(options, "title"),
      notes: notesFile === undefined ? undefined : await readNotes(notesFile, context.io.stdin),
    });
    if (!details.success) throw usageError(details.error.issues[0]?.message ?? "Invalid release details");
    const files = await Promise.all(
      localFiles(paths).map(async (f) => ({ ...f, sha256: await sha256OfFile(f.path) })),
    );
    const target: UploadTarget = {
      distribution: stringOption(options, "distribution"),
      component: stringOption(options, "component"),
      group: stringOption(options, "group"),
    };

    const api = context.api();
    const project = await requireProject(api, ref);
    const { title, notes } = details.data;
    const name = `${project.owner}/${project.slug}`;
    let releaseCreated = true;
    try {
      await api.createRelease(projectKey(project), details.data);
      context.print(`Created release ${name} ${version}`);
    } catch (error) {
      if (!(error instanceof CliError) || error.code !== "VERSION_EXISTS") throw error;
      releaseCreated = false;
      const update = title !== undefined || notes !== undefined;
      if (update) await api.updateRelease(projectKey(project), version, { title, notes });
      context.print(`Release ${name} ${version} exists${update ? "; title and notes updated" : ""}`);
    }

    const pushed: PushedFile[] = [];
    const showBar = !context.flags.json && Boolean(context.io.stdout.isTTY);
    for (const file of files) {
      const bar = progressBar(context.io.stdout, file.name, file.size, showBar);
      const done = await pushFile(api, project, version, file, target, bar).finally(() => bar.clear());
      pushed.push(done);
      const how =
        done.verifiedBy === "rpm-header"
          ? "signed by Packyard, header and payload verified"
          : `sha256 ${done.sha256}`;
      context.print(
        `${done.status === "uploaded" ? "Uploaded" : "Already present"} ${file.name} (${formatBytes(file.size)}, ${how})`,
      );
    }

    const server = api.client.server;
    const releaseUrl = `${server}/releases/${project.owner}/${project.slug}/${encodeURIComponent(version)}`;
    const install = installLines(server, project, pushed, target);
    context.result({ project: name, version, releaseCreated, releaseUrl, files: pushed, install }, () => {
      context.print();
      context.print(`Release: ${releaseUrl}`);
      if (install.apt || install.dnf) {
        context.print();
        if (project.visibility === "private")
          context.print("Install (TOKEN: a read API key for the project):");
        if (install.apt) context.print(`  apt:  ${install.apt}`);
        if (install.dnf) context.print(`  dnf:  ${install.dnf}`);
      }
    });
  },
};

/**
 * Uploads one file and checks what the server stored. FILE_EXISTS means it is there already —
 * from an earlier run, or from this one when an answer was lost and the upload retried — and is
 * fine when it is the same file.
 */
async function pushFile(
  api: PackyardApi,
  project: Project,
  version: string,
  file: LocalFile,
  target: UploadTarget,
  bar: Progress,
): Promise<PushedFile> {
  const name = `${project.owner}/${project.slug} ${version}`;
  let stored: ReleaseFile | undefined;
  let status: PushedFile["status"] = "uploaded";
  try {
    stored = await api.uploadFile(projectKey(project), version, file.name, target, () =>
      fileBody(file, bar.update),
    );
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== "FILE_EXISTS") throw error;
    stored = (await api.listFiles(projectKey(project), version)).find((f) => f.filename === file.name);
    if (!stored) throw error;
    status = "present";
  }
  const check = await checkStoredFile(file, stored, (length) =>
    api.readFileStart(project.owner, project.slug, version, file.name, length),
  );
  if (!check.same && status === "present") {
    throw new CliError(
      "FILE_EXISTS",
      `${file.name} already exists in ${name} with different contents (${check.why}); files are immutable: push a new version, or delete the file in the dashboard first`,
      exitCodes.conflict,
      409,
    );
  }
  if (!check.same) {
    throw new CliError(
      "SHA256_MISMATCH",
      `The server stored ${file.name} with different contents than were sent (${check.why}); delete the file in the dashboard and push again`,
      exitCodes.failure,
    );
  }
  const { filename, size, sha256, kind, url } = stored;
  return { filename, size, sha256, kind, url, status, verifiedBy: check.by };
}

/** Files as given, named by their basename; checked before anything is sent. */
function localFiles(paths: string[]): Omit<LocalFile, "sha256">[] {
  const seen = new Set<string>();
  return paths.map((path) => {
    let size: number;
    try {
      const stat = statSync(path);
      if (!stat.isFile()) throw usageError(`${path} is not a file`);
      size = stat.size;
    } catch (error) {
      if (error instanceof CliError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      throw usageError(
        code === "ENOENT"
          ? `No such file: ${path}`
          : `Cannot read ${path}: ${code ?? (error as Error).message}`,
      );
    }
    const name = basename(path);
    const problem = filenameProblem(name);
    if (problem) throw usageError(`${path}: ${problem}`);
    if (seen.has(name))
      throw usageError(`Two files are named ${name}: a release holds one file of each name`);
    seen.add(name);
    return { path, name, size };
  });
}

async function readNotes(path: string, stdin: NodeJS.ReadableStream): Promise<string> {
  if (path === "-") return readText(stdin);
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw usageError(
      code === "ENOENT" ? `No such notes file: ${path}` : `Cannot read the notes file ${path}: ${code}`,
    );
  }
}

/** A fresh stream of the file for each attempt, counting what is read for the progress bar. */
function fileBody(file: LocalFile, onProgress: (sent: number) => void) {
  const source = createReadStream(file.path);
  let sent = 0;
  const body = (Readable.toWeb(source) as ReadableStream<Uint8Array>).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        sent += chunk.byteLength;
        onProgress(sent);
        controller.enqueue(chunk);
      },
    }),
  );
  return { body, length: file.size, contentType: "application/octet-stream", close: () => source.destroy() };
}

/** The setup-script lines for the repositories this push put packages in. */
function installLines(server: string, project: Project, files: PushedFile[], target: UploadTarget) {
  const dl = `${server}/dl/${project.owner}/${project.slug}`;
  const isPrivate = project.visibility === "private";
  const line = (script: string, auth: string, env: string[]) =>
    `curl -fsSL ${isPrivate ? `${auth} ` : ""}${dl}/${script} | sudo ${[...(isPrivate ? ['PACKYARD_TOKEN="$TOKEN"'] : []), ...env, "bash"].join(" ")}`;
  const suite =
    target.distribution && target.distribution !== "stable"
      ? [`PACKYARD_DISTRIBUTION=${target.distribution}`]
      : [];
  const group = target.group ? [`PACKYARD_GROUP=${target.group}`] : [];
  return {
    apt: files.some((f) => f.kind === "deb")
      ? line("setup.deb.sh", '-H "Authorization: Bearer $TOKEN"', suite)
      : undefined,
    dnf: files.some((f) => f.kind === "rpm") ? line("setup.rpm.sh", '-u "token:$TOKEN"', group) : undefined,
  };
}
