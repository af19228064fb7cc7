// The schemas of the project pages' forms: the contract's rules, read the way a form posts them.
// The dialogs check them in the browser; the actions (routes/_app/project*.tsx) check them again.
import {
  createProjectInput,
  createReleaseInput,
  updateProjectInput,
  updateReleaseInput,
  yankInput,
} from "@packyard/contract";
import { z } from "zod";
import { text, trimmed } from "../../lib/forms.ts";

/** New project. The form offers no key algorithm: the project gets the default one. */
export const newProjectForm = createProjectInput.extend({
  slug: text(trimmed(createProjectInput.shape.slug)),
  name: text(createProjectInput.shape.name),
  visibility: z.preprocess((value) => value || undefined, createProjectInput.shape.visibility),
  homepage: trimmed(createProjectInput.shape.homepage),
  sourceUrl: trimmed(createProjectInput.shape.sourceUrl),
  keyAlgorithm: z.preprocess(() => undefined, createProjectInput.shape.keyAlgorithm),
});

/** Edit project: a field the form doesn't send is left as it is, an empty one is cleared. */
export const editProjectForm = updateProjectInput.extend({
  homepage: trimmed(updateProjectInput.shape.homepage),
  sourceUrl: trimmed(updateProjectInput.shape.sourceUrl),
});

/** Delete project: only once its slug is typed. */
export function deleteProjectForm(slug: string) {
  return z.object({
    confirm: text(
      z
        .string()
        .refine(
          (typed) => typed.trim() === slug,
          `Type ${slug} to confirm that you want to delete this project`,
        ),
    ),
  });
}

export const newReleaseForm = createReleaseInput.extend({
  version: text(trimmed(createReleaseInput.shape.version)),
});

/** A release's title and notes: both always posted, so an empty one clears it. */
export const releaseDetailsForm = z.object({
  title: text(updateReleaseInput.shape.title),
  notes: text(updateReleaseInput.shape.notes),
});

export const yankForm = z.object({ reason: text(yankInput.shape.reason) });

export const deleteFileForm = z.object({ filename: text(z.string()) });

/** Forms that are a button: nothing to check. */
export const buttonForm = z.object({});
