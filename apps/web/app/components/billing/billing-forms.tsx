// The billing pages' buttons: each posts one intent to a billing action (app/lib/billing.server.ts).
// Those that change what is charged ask first.
import type { ReactNode } from "react";
import { useEffect, useState } from "react";
import { Form, useFetcher, useNavigation } from "react-router";
import { toast } from "sonner";
import type { BillingAnswer } from "../../lib/billing.server.ts";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogTitle,
} from "../ui/alert-dialog.tsx";
import { Button } from "../ui/button.tsx";

type ButtonProps = Parameters<typeof Button>[0];

/** Leaves for Stripe (Checkout or the customer portal): a plain form post and a redirect. */
export function StripeRedirectButton({
  intent,
  plan,
  annual,
  action,
  children,
  ...props
}: {
  intent: "checkout" | "portal";
  plan?: string;
  annual?: boolean;
  /** The route whose action answers (default: this page). */
  action?: string;
  children: ReactNode;
} & Omit<ButtonProps, "type" | "name" | "value">) {
  const navigation = useNavigation();
  const busy =
    navigation.state !== "idle" &&
    navigation.formData?.get("intent") === intent &&
    (plan === undefined || navigation.formData?.get("plan") === plan) &&
    (annual === undefined || navigation.formData?.get("annual") === String(annual));
  return (
    <Form method="post" action={action} className="contents">
      {plan ? <input type="hidden" name="plan" value={plan} /> : null}
      {annual !== undefined ? <input type="hidden" name="annual" value={String(annual)} /> : null}
      <Button type="submit" name="intent" value={intent} disabled={busy} {...props}>
        {busy ? "Opening Stripe…" : children}
      </Button>
    </Form>
  );
}

/** A change to the subscription, confirmed in a dialog first; the answer shows as a toast. */
export function ConfirmedBillingButton({
  intent,
  plan,
  annual,
  title,
  description,
  confirmLabel,
  children,
  destructive = false,
  ...props
}: {
  intent: "change" | "cancel" | "resume";
  plan?: string;
  annual?: boolean;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  children: ReactNode;
  destructive?: boolean;
} & Omit<ButtonProps, "type" | "onClick">) {
  const fetcher = useFetcher<BillingAnswer>();
  const [open, setOpen] = useState(false);
  const busy = fetcher.state !== "idle";
  // The answer arrives before the page's data is reloaded, which may replace this button (a plan
  // that became current): toast on the answer itself.
  useEffect(() => {
    if (!fetcher.data) return;
    if (fetcher.data.ok) toast.success(fetcher.data.message ?? "Done");
    else toast.error(fetcher.data.error ?? "Something went wrong");
    setOpen(false);
  }, [fetcher.data]);
  return (
    <AlertDialog open={open} onOpenChange={setOpen}>
      <Button type="button" onClick={() => setOpen(true)} disabled={busy} {...props}>
        {children}
      </Button>
      <AlertDialogContent>
        <div className="grid gap-2">
          <AlertDialogTitle>{title}</AlertDialogTitle>
          <AlertDialogDescription asChild>
            <div className="grid gap-2">{description}</div>
          </AlertDialogDescription>
        </div>
        <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <AlertDialogCancel asChild>
            <Button variant="outline">Keep things as they are</Button>
          </AlertDialogCancel>
          <Button
            variant={destructive ? "destructive" : "default"}
            disabled={busy}
            onClick={() => {
              const payload: Record<string, string> = { intent };
              if (plan) payload.plan = plan;
              if (annual !== undefined) payload.annual = String(annual);
              void fetcher.submit(payload, { method: "post" });
            }}
          >
            {busy ? "Saving…" : confirmLabel}
          </Button>
        </div>
      </AlertDialogContent>
    </AlertDialog>
  );
}
