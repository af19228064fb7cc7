// A toast after a redirect: the action redirects with `?{param}=value`, the page shows the toast
// once and drops the param from the URL (replacing the history entry).
import { useEffect, useRef } from "react";
import { useLocation, useSearchParams } from "react-router";
import { toast } from "sonner";

export function useFlashToast(param: string, message: (value: string) => string) {
  const [search, setSearch] = useSearchParams();
  const location = useLocation();
  const value = search.get(param);
  const handled = useRef<string | null>(null);
  const messageRef = useRef(message);
  messageRef.current = message;
  useEffect(() => {
    if (value === null || handled.current === location.key) return;
    handled.current = location.key;
    toast.success(messageRef.current(value));
    const next = new URLSearchParams(search);
    next.delete(param);
    setSearch(next, { replace: true, preventScrollReset: true });
  }, [value, param, search, setSearch, location.key]);
}
