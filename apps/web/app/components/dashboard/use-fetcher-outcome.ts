// What happens after a project page's fetcher form is answered (lib/forms.ts FormReply): close
// the dialog, toast the message. The errors themselves are Conform's to show, next to the fields.
import { useEffect, useRef } from "react";
import { type FetcherWithComponents, useFetcher } from "react-router";
import { toast } from "sonner";
import { type FormReply, firstError, succeededReply } from "../../lib/forms.ts";

/**
 * Calls back once per answer a fetcher receives after this component mounted (not again on
 * re-renders, and not for an answer a shared, keyed fetcher already had).
 */
export function useFetcherOutcome(
  fetcher: FetcherWithComponents<FormReply>,
  handlers: { onSuccess?: (reply: FormReply) => void; onFailure?: (reply: FormReply) => void },
) {
  const seen = useRef<FormReply | undefined>(fetcher.data);
  const handlersRef = useRef(handlers);
  handlersRef.current = handlers;
  useEffect(() => {
    const reply = fetcher.data;
    if (fetcher.state !== "idle" || !reply || seen.current === reply) return;
    seen.current = reply;
    if (succeededReply(reply)) handlersRef.current.onSuccess?.(reply);
    else handlersRef.current.onFailure?.(reply);
  }, [fetcher.state, fetcher.data]);
}

/**
 * Toasts the answers of a keyed fetcher from a component that outlives the form (the form may
 * unmount when its data changes, e.g. a deleted file's row). Failures are toasted only when
 * asked, since most forms show them in place.
 */
export function useFetcherToasts(key: string, { failures = false }: { failures?: boolean } = {}) {
  const fetcher = useFetcher<FormReply>({ key });
  useFetcherOutcome(fetcher, {
    onSuccess: (reply) => {
      if (reply.message) toast.success(reply.message);
    },
    onFailure: (reply) => {
      if (failures) toast.error(firstError(reply) ?? "Something went wrong");
    },
  });
}
