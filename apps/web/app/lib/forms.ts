// Forms are written with Conform (docs/decisions/010-forms.md): one zod schema per form, checked
// in the browser before anything is posted and again by the action, which answers with Conform's
// result so field errors and the form's error show next to the inputs, with or without JavaScript.
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { ApiErrorCode } from "@packyard/contract";
import { z } from "zod";

/**
 * A posted form read with its schema, in the browser (`useForm`'s `onValidate`) and in the action.
 * Conform's automatic coercion is off: it reads an empty field as a missing one, which would
 * replace the schemas' own messages ("Name is required") with zod's generic one. How a field is
 * read is said by the schema instead, with {@link text}, {@link trimmed} and {@link list}.
 */
export function parseForm<Schema extends z.ZodType>(formData: FormData, schema: Schema) {
  return parseWithZod(formData, { schema, disableAutoCoercion: true });
}

/** A field every post has: when missing, it reads as empty. */
export function text<Schema extends z.ZodType>(schema: Schema) {
  return z.preprocess((value) => value ?? "", schema);
}

/** A field read without the spaces around it. */
export function trimmed<Schema extends z.ZodType>(schema: Schema) {
  return z.preprocess((value) => (typeof value === "string" ? value.trim() : value), schema);
}

/** Checkboxes sharing a name: a list without repeats, whether none, one or several are ticked. */
export function list<Schema extends z.ZodType>(schema: Schema) {
  return z.preprocess((value) => [...new Set(value === undefined ? [] : [value].flat())], schema);
}

/** What an action answers a form that stays on the page. */
export interface FormReply {
  /** Conform's result: "success" or "error", the errors by field name ("" for the whole form). */
  result: SubmissionResult<string[]>;
  /** What to tell the user on success (a toast). */
  message?: string;
  /** Why the server refused, when it did (PLAN_LIMIT links to the plans). */
  code?: ApiErrorCode;
}

export function succeededReply(reply: FormReply | undefined): reply is FormReply {
  return reply?.result.status === "success";
}

/** The first message of a refusal: the form's own, else the first field's. */
export function firstError(reply: FormReply): string | undefined {
  const errors = reply.result.error ?? {};
  return errors[""]?.[0] ?? Object.values(errors).flatMap((messages) => messages ?? [])[0];
}
