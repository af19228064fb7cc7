// The form that adds a trusted publisher on /projects/{slug}/publishing: the contract's own schema
// (createTrustedPublisherInput), checked in the browser and again by the action, over the fields
// of the provider chosen. An empty optional field is a condition left out.
import {
  type CreateTrustedPublisherInput,
  createTrustedPublisherInput,
  TRUSTED_PUBLISHER_PROVIDERS,
  type TrustedPublisherProvider,
} from "@packyard/contract/trusted-publishing.ts";
import { z } from "zod";

/** The fields each provider's form posts: the first is required, the others optional. */
export const PROVIDER_FIELDS = {
  github: ["repository", "workflow", "environment", "ref", "issuer"],
  gitlab: ["projectPath", "environment", "ref", "issuer"],
} as const satisfies Record<TrustedPublisherProvider, readonly string[]>;

const isProvider = (value: unknown): value is TrustedPublisherProvider =>
  (TRUSTED_PUBLISHER_PROVIDERS as readonly unknown[]).includes(value);

/** The posted fields of the chosen provider: the required one always, the optional ones when filled. */
function providerFields(value: unknown): unknown {
  const posted = (value ?? {}) as Record<string, unknown>;
  const provider = posted.provider;
  if (!isProvider(provider)) return { provider };
  const [required, ...optional] = PROVIDER_FIELDS[provider];
  const fields: Record<string, unknown> = { provider, [required]: posted[required] ?? "" };
  for (const name of optional) {
    const field = posted[name];
    if (typeof field === "string" && field.trim() !== "") fields[name] = field;
  }
  return fields;
}

export const trustedPublisherForm: z.ZodType<CreateTrustedPublisherInput> = z
  .preprocess(
    providerFields,
    z.looseObject({
      provider: z.enum(TRUSTED_PUBLISHER_PROVIDERS, { error: "Choose GitHub Actions or GitLab CI" }),
    }),
  )
  .pipe(createTrustedPublisherInput);

const FIELD_NAMES: Record<string, string> = { projectPath: "Project path" };

/**
 * A contract message as the form shows it: the contract names the API's field ("projectPath
 * must be …"); the form names it as its label does ("Project path must be …").
 */
export function fieldMessage(message: string | undefined): string | undefined {
  if (!message) return message;
  const named = message.replace(/^[A-Za-z]+\b/, (word) => FIELD_NAMES[word] ?? word);
  return named.charAt(0).toUpperCase() + named.slice(1);
}
