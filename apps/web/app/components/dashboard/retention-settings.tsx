// The retention section of a project's settings (decision 034): the rules, a preview of what
// they would delete now (a dry run of the values as typed; nothing saved or deleted), and the
// last run that deleted releases. Posted through a fetcher to the settings route's action. The
// preview warns when the rules would delete the release `latest` resolves to (decision 064).
import { useForm } from "@conform-to/react";
import type { RetentionDecision, RetentionPlan, RetentionSettings } from "@packyard/contract";
import { useId, useRef } from "react";
import { useFetcher } from "react-router";
import { toast } from "sonner";
import { parseForm } from "../../lib/forms.ts";
import type { RetentionReply } from "../../lib/retention.server.ts";
import { retentionForm } from "../../lib/retention-form.ts";
import { Alert } from "../ui/alert.tsx";
import { Badge } from "../ui/badge.tsx";
import { Button } from "../ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../ui/card.tsx";
import { FormField } from "../ui/form-field.tsx";
import { FormattedDate } from "./formatted-date.tsx";
import { FormAlert } from "./project-dialogs.tsx";
import { useFetcherOutcome } from "./use-fetcher-outcome.ts";

function reasonText(decision: RetentionDecision, keep: number, days: number): string {
  switch (decision.reason) {
    case "newest":
      return `Kept: one of the newest ${keep}`;
    case "major":
      return "Kept: newest of its major version";
    case "young":
      return `Kept: younger than ${days} day${days === 1 ? "" : "s"}`;
    case "yanked":
      return "Kept: yanked, not counted, newer than the oldest kept";
    case "latest":
      return "Kept: the latest release";
    case "older":
      return "Deleted";
  }
}

/** What `latest` becomes when the plan deletes it: the newest release kept that is not yanked. */
function LatestWarning({ plan }: { plan: RetentionPlan }) {
  const next = plan.keep
    .filter((decision) => !decision.yanked)
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))[0];
  return (
    <Alert variant="error">
      These rules delete <span className="font-mono">{plan.latest}</span>, the latest release;{" "}
      {next ? (
        <>
          <span className="font-mono">latest</span> would then be{" "}
          <span className="font-mono">{next.version}</span>.
        </>
      ) : (
        <>
          no release would then be <span className="font-mono">latest</span>.
        </>
      )}
    </Alert>
  );
}

function Checkbox({
  name,
  label,
  defaultChecked,
  hint,
}: {
  name: string;
  label: string;
  defaultChecked: boolean;
  hint?: string;
}) {
  const id = useId();
  return (
    <div className="grid gap-1">
      <label className="flex items-center gap-2 text-sm font-medium">
        <input
          type="checkbox"
          name={name}
          defaultChecked={defaultChecked}
          aria-describedby={hint ? `${id}-hint` : undefined}
          className="size-4 accent-primary"
        />
        {label}
      </label>
      {hint ? (
        <p id={`${id}-hint`} className="pl-6 text-sm text-muted-foreground">
          {hint}
        </p>
      ) : null}
    </div>
  );
}

/**
 * `posted`: the page's own action answer, when the form was posted without JavaScript (the
 * fetcher's answer otherwise).
 */
export function RetentionSettingsCard({
  settings,
  posted,
}: {
  settings: RetentionSettings;
  posted?: RetentionReply;
}) {
  const fetcher = useFetcher<RetentionReply>({ key: "retention" });
  const reply = fetcher.data ?? posted;
  const [form, fields] = useForm({
    id: "retention",
    lastResult: reply?.result,
    defaultValue: {
      enabled: settings.enabled ? "on" : "",
      keepReleases: String(settings.keepReleases),
      keepNewestPerMajor: settings.keepNewestPerMajor ? "on" : "",
      minAgeDays: String(settings.minAgeDays),
      countYanked: settings.countYanked ? "on" : "",
      deleteLatest: settings.deleteLatest ? "on" : "",
      keepImageTags: settings.keepImageTags === null ? "" : String(settings.keepImageTags),
    },
    onValidate: ({ formData }) => parseForm(formData, retentionForm),
    shouldRevalidate: "onInput",
  });
  useFetcherOutcome(fetcher, {
    onSuccess: (reply) => {
      if (reply.message) toast.success(reply.message);
    },
  });
  const plan = reply?.plan;
  const shown = useRef({ keep: settings.keepReleases, days: settings.minAgeDays });
  const busy = fetcher.state !== "idle";
  const submitted = fetcher.formData?.get("intent");

  return (
    <Card>
      <CardHeader>
        <CardTitle>Retention</CardTitle>
        <CardDescription>
          Deletes old releases after each publish, and old container image tags after each push, so the
          project stops growing. Nothing is deleted while this is off; preview what the rules would delete
          before you turn them on.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <fetcher.Form
          method="post"
          id={form.id}
          onSubmit={(event) => {
            const data = new FormData(event.currentTarget);
            shown.current = {
              keep: Number(data.get(fields.keepReleases.name)) || shown.current.keep,
              days: Number(data.get(fields.minAgeDays.name)) || 0,
            };
            form.onSubmit(event);
          }}
          className="grid gap-4"
          noValidate
          aria-label="Retention rules"
        >
          <FormAlert errors={form.errors} code={reply?.code} />
          <Checkbox
            name={fields.enabled.name}
            label="Delete old releases automatically"
            defaultChecked={settings.enabled}
            hint="After each publish, releases the rules let go are deleted with their files; the repositories republish."
          />
          <div className="grid items-start gap-4 sm:grid-cols-2">
            <FormField
              label="Keep the newest releases"
              name={fields.keepReleases.name}
              inputMode="numeric"
              defaultValue={fields.keepReleases.initialValue as string}
              error={fields.keepReleases.errors?.[0]}
              className="max-w-40"
            />
            <FormField
              label="Never delete releases younger than (days)"
              name={fields.minAgeDays.name}
              inputMode="numeric"
              defaultValue={fields.minAgeDays.initialValue as string}
              error={fields.minAgeDays.errors?.[0]}
              hint="0: no minimum age."
              className="max-w-40"
            />
          </div>
          <Checkbox
            name={fields.keepNewestPerMajor.name}
            label="Also keep the newest release of each major version"
            defaultChecked={settings.keepNewestPerMajor}
            hint="For example the newest 1.x stays when 2.x and 3.x fill the places."
          />
          <Checkbox
            name={fields.countYanked.name}
            label="Yanked releases count toward the number kept"
            defaultChecked={settings.countYanked}
            hint="Off: a yanked release takes no place, and is deleted once it is older than the oldest release kept. On: it takes one, so fewer installable releases stay."
          />
          <Checkbox
            name={fields.deleteLatest.name}
            label="May delete the latest release"
            defaultChecked={settings.deleteLatest}
            hint="Off: the latest release (the newest that is not yanked) stays, whatever the other rules say."
          />
          <FormField
            label="Keep the newest tags of each container image"
            name={fields.keepImageTags.name}
            inputMode="numeric"
            defaultValue={fields.keepImageTags.initialValue as string}
            error={fields.keepImageTags.errors?.[0]}
            hint="Empty: tags are never deleted. Older tags go when the rules run; their images stay pullable by digest."
            className="max-w-40"
          />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" name="intent" value="retention-preview" variant="outline" disabled={busy}>
              {busy && submitted === "retention-preview" ? "Previewing…" : "Preview"}
            </Button>
            <Button type="submit" name="intent" value="retention-save" disabled={busy}>
              {busy && submitted === "retention-save" ? "Saving…" : "Save retention rules"}
            </Button>
          </div>
        </fetcher.Form>
        {settings.lastRun ? (
          <p className="mt-4 text-sm text-muted-foreground">
            Last run <FormattedDate iso={settings.lastRun.at} withTime /> deleted{" "}
            <span className="font-mono text-foreground">{settings.lastRun.removed.join(", ")}</span>.
          </p>
        ) : null}
        {plan ? (
          <section className="mt-6 grid gap-3" aria-label="Retention preview">
            <h3 className="text-sm font-semibold">
              {plan.remove.length === 0
                ? "Nothing would be deleted now."
                : `${plan.remove.length} of ${plan.keep.length + plan.remove.length} releases would be deleted.`}
            </h3>
            {plan.deletesLatest ? <LatestWarning plan={plan} /> : null}
            <div className="max-h-96 overflow-auto rounded-md border border-border">
              <table className="w-full text-left text-sm">
                <caption className="sr-only">Releases, newest first, and what the rules do with each</caption>
                <thead className="sticky top-0 bg-muted text-muted-foreground">
                  <tr>
                    <th scope="col" className="px-3 py-2 font-medium">
                      Version
                    </th>
                    <th scope="col" className="hidden px-3 py-2 font-medium sm:table-cell">
                      Created
                    </th>
                    <th scope="col" className="px-3 py-2 font-medium">
                      Outcome
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {[...plan.keep, ...plan.remove]
                    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0))
                    .map((decision) => (
                      <tr key={decision.version} className="border-t border-border">
                        <td className="break-all px-3 py-2 font-mono">
                          {decision.version}
                          {decision.yanked ? (
                            <Badge variant="outline" className="ml-2">
                              yanked
                            </Badge>
                          ) : null}
                        </td>
                        <td className="hidden px-3 py-2 text-muted-foreground sm:table-cell">
                          <FormattedDate iso={decision.createdAt} />
                        </td>
                        <td
                          className={
                            decision.reason === "older"
                              ? "px-3 py-2 font-medium text-destructive"
                              : "px-3 py-2 text-muted-foreground"
                          }
                        >
                          {reasonText(decision, shown.current.keep, shown.current.days)}
                        </td>
                      </tr>
                    ))}
                </tbody>
              </table>
            </div>
          </section>
        ) : null}
      </CardContent>
    </Card>
  );
}
