// The import form of the integration pages, read in the browser and again by the action: its
// fields become the contract's import request (`importSourceInput`), whose messages go next to
// the fields they are about. Secrets (token, password) are never sent back with the answer.
import { type ImportSourceInput, importSourceInput } from "@packyard/contract";
import { z } from "zod";

const field = z.string().optional();

/** Fields whose values an answer never carries back to the page. */
export const SECRET_FIELDS = ["token", "password"];

export const importForm = z
  .object({
    project: field,
    kind: field,
    repository: field,
    token: field,
    includePrereleases: field,
    includeDrafts: field,
    url: field,
    distribution: field,
    components: field,
    username: field,
    password: field,
    naming: field,
    release: field,
  })
  .transform((form, ctx) => {
    const project = form.project?.trim() ?? "";
    if (!project)
      ctx.addIssue({ code: "custom", message: "Choose the project to import into", path: ["project"] });
    const parsed = importSourceInput.safeParse(sourceFromForm(form));
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        ctx.addIssue({ code: "custom", message: issue.message, path: [String(issue.path[0] ?? "kind")] });
    } else if (parsed.data.kind !== "github-releases" && form.naming === "named" && !parsed.data.release) {
      ctx.addIssue({
        code: "custom",
        message: "Name the release, or choose one release per version",
        path: ["release"],
      });
    }
    if (!parsed.success || !project) return z.NEVER;
    return { project, source: parsed.data };
  });

type Form = z.input<typeof importForm>;

const optional = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

function sourceFromForm(form: Form): unknown {
  const credentials = { username: optional(form.username), password: form.password || undefined };
  const release = form.naming === "named" ? optional(form.release) : undefined;
  switch (form.kind) {
    case "github-releases":
      return {
        kind: form.kind,
        repository: (form.repository ?? "").trim(),
        token: form.token?.trim() || undefined,
        includePrereleases: form.includePrereleases === "on",
        includeDrafts: form.includeDrafts === "on",
      } satisfies Partial<ImportSourceInput>;
    case "apt-repository": {
      const components = (form.components ?? "").split(/[\s,]+/).filter(Boolean);
      return {
        kind: form.kind,
        url: (form.url ?? "").trim(),
        distribution: (form.distribution ?? "").trim(),
        components: components.length ? components : undefined,
        ...credentials,
        release,
      };
    }
    case "yum-repository":
      return { kind: form.kind, url: (form.url ?? "").trim(), ...credentials, release };
    default:
      return { kind: form.kind };
  }
}
