// /api-keys: keys for CI and the CLI. A key has a name, an expiry, access (read or publish) and a
// scope (all projects or chosen ones). The secret is shown once, right after creation.
import { useState } from "react";
import { data, useRouteLoaderData } from "react-router";
import { CreateKeyForm, type CreateKeyValues } from "../../components/api-keys/create-key-form.tsx";
import { KeyList } from "../../components/api-keys/key-list.tsx";
import { NewSecret } from "../../components/api-keys/new-secret.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import {
  type CreatedKey,
  createApiKey,
  createKeySchema,
  createKeyValues,
  deleteApiKey,
  deleteExpiredApiKeys,
  expiresInSeconds,
  listApiKeys,
  listOwnProjects,
  UnknownProjectError,
} from "../../lib/api-keys.server.ts";
import { pageMeta } from "../../lib/meta.ts";
import { requireOnboardedUser, services } from "../../lib/session.server.ts";
import { fieldErrors } from "../../lib/validation.ts";
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
    listOwnProjects(s.database.db, user.id),
  ]);
  return { keys, projects };
}

type ActionResult =
  | { intent: "create"; ok: true; created: CreatedKey }
  | { intent: "create"; ok: false; errors: Record<string, string>; values: CreateKeyValues }
  | { intent: "delete"; ok: boolean; error?: string }
  | { intent: "delete-expired"; ok: true; deleted: number }
  | { intent: null; ok: false; error: string };

export async function action({ request, context, url }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const s = services(context);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");

  if (intent === "create") {
    const values = createKeyValues(form);
    const parsed = createKeySchema.safeParse(values);
    if (!parsed.success) {
      return data<ActionResult>(
        { intent, ok: false, errors: fieldErrors(parsed.error), values },
        { status: 400 },
      );
    }
    const input = parsed.data;
    try {
      const created = await createApiKey(s, user.id, {
        name: input.name,
        expiresIn: expiresInSeconds(input.expiry),
        scope: { projects: input.scope === "all" ? "*" : input.projectIds, access: input.access },
      });
      return data<ActionResult>({ intent, ok: true, created });
    } catch (error) {
      if (error instanceof UnknownProjectError) {
        return data<ActionResult>(
          { intent, ok: false, errors: { projectIds: error.message }, values },
          { status: 400 },
        );
      }
      throw error;
    }
  }

  if (intent === "delete") {
    const keyId = String(form.get("keyId") ?? "");
    const deleted = keyId ? await deleteApiKey(s, user.id, keyId) : false;
    return deleted
      ? data<ActionResult>({ intent, ok: true })
      : data<ActionResult>({ intent, ok: false, error: "This key does not exist any more" }, { status: 404 });
  }

  if (intent === "delete-expired") {
    const deleted = await deleteExpiredApiKeys(s, user.id);
    return data<ActionResult>({ intent, ok: true, deleted });
  }

  return data<ActionResult>({ intent: null, ok: false, error: "Unknown action" }, { status: 400 });
}

export default function ApiKeys({ loaderData, actionData }: Route.ComponentProps) {
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const [dismissed, setDismissed] = useState<string | null>(null);
  const created = actionData?.intent === "create" && actionData.ok ? actionData.created : null;
  const failed = actionData?.intent === "create" && !actionData.ok ? actionData : null;
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
            <div className="grid gap-1.5 text-sm">
              <p className="text-muted-foreground">Send it as a bearer token:</p>
              <pre className="overflow-x-auto rounded-md border border-border bg-background p-3 font-mono text-xs">
                <code>{`curl -H "Authorization: Bearer $PACKYARD_KEY" ${baseUrl}/api/v1/projects`}</code>
              </pre>
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
              values={failed?.values}
              errors={failed?.errors}
            />
          </CardContent>
        </Card>

        <KeyList keys={loaderData.keys} projects={loaderData.projects} />
      </div>
    </>
  );
}
