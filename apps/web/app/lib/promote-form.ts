// The Promote dialog's form (decision 035), shared by the browser and the release page's action:
// empty fields name nothing; at least one target is required (the contract's rule).
import { promoteInput } from "@packyard/contract";
import { z } from "zod";

const optional = (value: unknown) => {
  const typed = typeof value === "string" ? value.trim() : "";
  return typed === "" ? undefined : typed;
};

export const promoteForm = z
  .object({
    project: z.preprocess(optional, z.string().optional()),
    distribution: z.preprocess(optional, z.string().optional()),
    component: z.preprocess(optional, z.string().optional()),
    group: z.preprocess(optional, z.string().optional()),
  })
  .pipe(promoteInput);
