// A date from the server, in the reader's time zone. The server and the first (hydrating)
// render use UTC so they agree; after hydration the local date replaces it.
import { useSyncExternalStore } from "react";

const subscribe = () => () => {};
function useHydrated() {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}

export function formatDate(iso: string, options: { withTime?: boolean; timeZone?: string } = {}): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat("en-US", {
    dateStyle: "medium",
    ...(options.withTime ? { timeStyle: "short" } : {}),
    ...(options.timeZone ? { timeZone: options.timeZone } : {}),
  }).format(date);
}

export function FormattedDate({
  iso,
  withTime = false,
  className,
}: {
  iso: string;
  withTime?: boolean;
  className?: string;
}) {
  const hydrated = useHydrated();
  const text = formatDate(iso, { withTime, timeZone: hydrated ? undefined : "UTC" });
  const full = formatDate(iso, { withTime: true, timeZone: hydrated ? undefined : "UTC" });
  return (
    <time dateTime={iso} title={full} className={className}>
      {text}
    </time>
  );
}
