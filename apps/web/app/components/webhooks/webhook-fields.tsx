// The fields of the add and edit forms: the receiver's URL, a description, and the events.
import { WEBHOOK_EVENTS, type WebhookEvent, webhookEventDescriptions } from "@packyard/contract";
import { useId } from "react";
import { FormField } from "../ui/form-field.tsx";

export function WebhookFields({
  defaults,
  errors,
}: {
  defaults?: { url: string; description: string | null; events: WebhookEvent[] };
  errors?: Record<string, string[] | undefined>;
}) {
  const id = useId();
  const chosen = new Set<string>(defaults?.events ?? WEBHOOK_EVENTS);
  const eventsError = errors?.events?.[0];
  return (
    <div className="grid gap-5">
      <FormField
        label="Payload URL"
        name="url"
        type="url"
        inputMode="url"
        autoComplete="off"
        spellCheck={false}
        placeholder="https://ci.example.com/hooks/packyard"
        defaultValue={defaults?.url}
        error={errors?.url?.[0]}
        hint="Packyard POSTs JSON here, signed with the secret. Public addresses only."
        data-autofocus
      />
      <FormField
        label="Description (optional)"
        name="description"
        maxLength={200}
        autoComplete="off"
        placeholder="e.g. Deploy staging"
        defaultValue={defaults?.description ?? ""}
        error={errors?.description?.[0]}
      />
      <fieldset
        className="grid gap-2"
        aria-describedby={eventsError ? `${id}-events-error` : undefined}
        aria-invalid={eventsError ? true : undefined}
      >
        <legend className="mb-2 text-sm font-medium">Events</legend>
        <div className="grid gap-2 sm:grid-cols-2">
          {WEBHOOK_EVENTS.map((event) => (
            <label
              key={event}
              className="flex items-start gap-2 rounded-md border border-border p-2.5 text-sm has-[:checked]:border-primary/50 has-[:checked]:bg-accent/40"
            >
              <input
                type="checkbox"
                name="events"
                value={event}
                defaultChecked={chosen.has(event)}
                className="mt-0.5 size-4 shrink-0 accent-primary"
              />
              <span className="grid gap-0.5">
                <span className="font-mono text-xs font-medium">{event}</span>
                <span className="text-muted-foreground">{webhookEventDescriptions[event]}</span>
              </span>
            </label>
          ))}
        </div>
        {eventsError ? (
          <p id={`${id}-events-error`} className="text-sm text-destructive">
            {eventsError}
          </p>
        ) : null}
      </fieldset>
    </div>
  );
}
