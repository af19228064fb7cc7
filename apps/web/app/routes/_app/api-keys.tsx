// /api-keys: keys for CI and the CLI. A key has a name, an expiry, access (read or publish) and a
// scope (all projects or chosen ones). The secret is shown once, right after creation.
import type { SubmissionResult } from "@conform-to/react";
import { useState } from "react";
import { data, useRouteLoaderData } from "react-router";
import { CreateKeyForm } from "../../components/api-keys/create-key-form.tsx";
import { KeyList, type KeyListAnswer } from "../../components/api-keys/key-list.tsx";
import { NewSecret } from "../../components/api-keys/new-secret.tsx";
import { createKeyForm } from "../../components/api-keys/options.ts";
import { CommandBlock } from "../../components/marketing/command-block.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import {
  type CreatedKey,
  createApiKey,
  deleteApiKey,
  deleteExpiredApiKeys,
  expiresInSeconds,
  listApiKeys,
  listScopeProjects,
  UnknownProjectError,
} from "../../lib/api-keys.server.ts";
import { parseForm } from "../../lib/forms.ts";
import { pageMeta } from "../../lib/meta.ts";
import {
  checkKeyCommand,
  curlUploadCommand,
  EXAMPLE_VERSION,
  exportTokenCommand,
  installCliCommand,
  PLACEHOLDER_PROJECT,
  parseProjectArgument,
  pushCommand,
  SERVER_VARIABLE,
  TOKEN_VARIABLE,
} from "../../lib/publish-commands.ts";
import { clientAddress, requireOnboardedUser, services } from "../../lib/session.server.ts";
import type { loader as rootLoader } from "../../root.tsx";
import type { Route } from "./+types/api-keys";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "API keys",
    noindex: true,
  });

/** Personal pages that can show a fresh secret: never cached. */
export const headers: Route.HeadersFunction = () => ({ "Cache-Control": "no-store" });

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const s = services(context);
  const [keys, projects] = await Promise.all([
    listApiKeys(s, user.id),
    listScopeProjects(s.database.db, user.id),
  ]);
  // The examples name one of the user's projects: a scope's slug is owner/slug for an
  // organization's project, a bare slug for the user's own.
  const first = projects[0]?.slug;
  const example = first === undefined ? null : first.includes("/") ? first : `${user.username}/${first}`;
  return { keys, projects, example };
}

/** The create form's answer: Conform's result, and the key once it is created. */
interface CreateAnswer {
  intent: "create";
  result: SubmissionResult;
  created?: CreatedKey;
}

export async function action({ request, context, url }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const s = services(context);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");

  if (intent === "create") {
    const submission = parseForm(form, createKeyForm);
    if (submission.status !== "success") {
      return data<CreateAnswer>({ intent, result: submission.reply() }, { status: 400 });
    }
    const input = submission.value;
    try {
      const created = await createApiKey(
        s,
        user.id,
        {
          name: input.name,
          expiresIn: expiresInSeconds(input.expiry),
          scope: { projects: input.scope === "all" ? "*" : input.projectIds, access: input.access },
        },
        clientAddress(context),
      );
      return data<CreateAnswer>({ intent, result: submission.reply(), created });
    } catch (error) {
      if (error instanceof UnknownProjectError) {
        return data<CreateAnswer>(
          { intent, result: submission.reply({ fieldErrors: { projectIds: [error.message] } }) },
          { status: 400 },
        );
      }
      throw error;
    }
  }

  // The list's buttons: answered for a toast.
  if (intent === "delete") {
    const keyId = String(form.get("keyId") ?? "");
    const deleted = keyId ? await deleteApiKey(s, user.id, keyId, clientAddress(context)) : false;
    return deleted
      ? data<KeyListAnswer>({ intent, ok: true })
      : data<KeyListAnswer>(
          { intent, ok: false, error: "This key does not exist any more" },
          { status: 404 },
        );
  }

  if (intent === "delete-expired") {
    const deleted = await deleteExpiredApiKeys(s, user.id, clientAddress(context));
    return data<KeyListAnswer>({ intent, ok: true, deleted });
  }

  return data<KeyListAnswer>({ intent: null, ok: false, error: "Unknown action" }, { status: 400 });
}

export default function ApiKeys({ loaderData, actionData }: Route.ComponentProps) {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const [dismissed, setDismissed] = useState<string | null>(null);
  const createAnswer = actionData?.intent === "create" ? actionData : undefined;
  const created = createAnswer?.created ?? null;
  const showSecret = created && dismissed !== created.id;
  const baseUrl = root?.baseUrl ?? "";

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys let CI jobs and the packyard CLI publish and read on your behalf."
      />
      <div className="grid gap-8">
        {showSecret ? (
          <NewSecret
            title={`Your new API key “${created.name ?? "Unnamed key"}”`}
            secret={created.key}
            actions={
              <Button variant="outline" onClick={() => setDismissed(created.id)}>
                Done
              </Button>
            }
          >
            <div className="grid min-w-0 gap-1.5 text-sm">
              <p className="text-muted-foreground">
                Put it in <code className="font-mono">{TOKEN_VARIABLE}</code> (in CI, a secret of that name)
                and send it as a bearer token:
              </p>
              <CommandBlock
                lines={[{ command: exportTokenCommand(created.key) }, { command: checkKeyCommand(baseUrl) }]}
              />
            </div>
          </NewSecret>
        ) : null}

        <Card>
          <CardHeader>
            <CardTitle>Create an API key</CardTitle>
            <CardDescription>
              Give each CI job or machine its own key, with the least access it needs. You can delete a key at
              any time.
            </CardDescription>
          </CardHeader>
          <CardContent>
            <CreateKeyForm
              key={created?.id ?? "new"}
              projects={loaderData.projects}
              lastResult={created ? undefined : createAnswer?.result}
            />
          </CardContent>
        </Card>

        <KeyList keys={loaderData.keys} projects={loaderData.projects} />

        <UseAKey baseUrl={baseUrl} example={loaderData.example} />
      </div>
    </>
  );
}

/** How CI and scripts use a key: the variables the CLI reads, or curl alone. */
function UseAKey({ baseUrl, example }: { baseUrl: string; example: string | null }) {
  const project = parseProjectArgument(example ?? PLACEHOLDER_PROJECT)!;
  return (
    <Card data-testid="use-a-key">
      <CardHeader>
        <CardTitle>Publish with a key</CardTitle>
        <CardDescription>
          The packyard CLI reads the server from <code className="font-mono">{SERVER_VARIABLE}</code> and the
          key from <code className="font-mono">{TOKEN_VARIABLE}</code>, so a CI job needs no login; curl sends
          the key as a bearer token. On your own machine, <code className="font-mono">packyard login</code>{" "}
          creates a key for you.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid min-w-0 gap-4">
        <CommandBlock
          title="CI or a script"
          lines={[
            { command: `export ${SERVER_VARIABLE}=${baseUrl}` },
            { command: exportTokenCommand() },
            { command: installCliCommand(baseUrl) },
            { command: pushCommand(project) },
          ]}
        />
        <CommandBlock
          title="curl"
          lines={[
            { command: curlUploadCommand({ baseUrl, ...project }, EXAMPLE_VERSION) },
            { command: checkKeyCommand(baseUrl) },
          ]}
        />
      </CardContent>
    </Card>
  );
}
