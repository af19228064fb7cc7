// A Conform form whose submission is handled in the browser (a better-auth client call): the
// schema is checked first, then the handler runs, and what it refuses shows next to the fields
// or as the form's error, like an action's answer would (lib/forms.ts, decision 010).
import { type SubmissionResult, useForm } from "@conform-to/react";
import { useState } from "react";
import { z } from "zod";
import { parseForm, trimmed } from "../../lib/forms.ts";

export type Refusal = { fieldErrors: Record<string, string[]> } | { formError: string };

export function useClientForm<Schema extends z.ZodObject>(
  id: string,
  schema: Schema,
  handle: (value: z.output<Schema>) => Promise<Refusal | undefined>,
) {
  const [lastResult, setLastResult] = useState<SubmissionResult>();
  const [busy, setBusy] = useState(false);
  const [form, fields] = useForm<z.input<Schema>, z.output<Schema>>({
    id,
    lastResult,
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseForm(formData, schema),
    onSubmit: async (event, { submission }) => {
      event.preventDefault();
      if (submission?.status !== "success") return;
      setBusy(true);
      try {
        const refusal = await handle(submission.value);
        if (!refusal) setLastResult(submission.reply({ resetForm: true }));
        else if ("fieldErrors" in refusal)
          setLastResult(submission.reply({ fieldErrors: refusal.fieldErrors }));
        else setLastResult(submission.reply({ formErrors: [refusal.formError] }));
      } finally {
        setBusy(false);
      }
    },
  });
  return { form, fields, busy };
}

/** better-auth's wrong-password answer, in the words of this page. */
export const WRONG_PASSWORD = "The password is not correct";

/** A code from an authenticator app: 6 digits (spaces, as some apps show them, are dropped). */
export const totpCodeSchema = trimmed(
  z
    .string()
    .transform((v) => v.replace(/\s+/g, ""))
    .pipe(z.string().regex(/^\d{6}$/, "Enter the 6-digit code from your authenticator app")),
);
