// What the project pages' actions answer, shared by the server (lib/dashboard.server.ts) and
// the forms: `{ ok, intent, ... }`, so a page can tell which of its forms an answer is for.
import type { ApiErrorCode } from "@packyard/contract";
import { useEffect, useRef } from "react";
import { type FetcherWithComponents, useFetcher } from "react-router";
import { toast } from "sonner";

export type FieldErrors = Record<string, string>;

export interface ActionSuccess {
  ok: true;
  intent: string;
  message: string;
}

export interface ActionFailure {
  ok: false;
  intent: string;
  /** Messages per form field. */
  errors: FieldErrors;
  /** A message for the whole form, shown in an alert. */
  formError?: string;
  code?: ApiErrorCode;
}

export type ActionResult = ActionSuccess | ActionFailure;

/** The failure of this fetcher's last submission, if it failed. */
export function failureOf(result: ActionResult | undefined): ActionFailure | undefined {
  return result && !result.ok ? result : undefined;
}

/**
 * Calls back once per answer a fetcher receives after this component mounted (not again on
 * re-renders, and not for an answer a shared, keyed fetcher already had).
 */
export function useFetcherOutcome(
  fetcher: FetcherWithComponents<ActionResult>,
  handlers: { onSuccess?: (result: ActionSuccess) => void; onFailure?: (result: ActionFailure) => void },
) {
  const seen = useRef<ActionResult | undefined>(fetcher.data);
  const handlersRef = useRef(handlers);
  handlersRef.current = handlers;
  useEffect(() => {
    const result = fetcher.data;
    if (fetcher.state !== "idle" || !result || seen.current === result) return;
    seen.current = result;
    if (result.ok) handlersRef.current.onSuccess?.(result);
    else handlersRef.current.onFailure?.(result);
  }, [fetcher.state, fetcher.data]);
}

/**
 * Toasts the answers of a keyed fetcher from a component that outlives the form (the form may
 * unmount when its data changes, e.g. a deleted file's row). Failures are toasted only when
 * asked, since most forms show them in place.
 */
export function useFetcherToasts(key: string, { failures = false }: { failures?: boolean } = {}) {
  const fetcher = useFetcher<ActionResult>({ key });
  useFetcherOutcome(fetcher, {
    onSuccess: (result) => toast.success(result.message),
    onFailure: (result) => {
      if (failures)
        toast.error(result.formError ?? Object.values(result.errors)[0] ?? "Something went wrong");
    },
  });
}
