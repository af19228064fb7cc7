// /billing: the plan and what it costs, the card on file (brand, last 4, expiry), the invoices
// from Stripe (date, amount in spec §9's currency display, status, PDF) and "Manage billing",
// which opens Stripe's customer portal. Without Stripe configured: the plan the operator set.

import { plans } from "@packyard/contract/plans.ts";
import { CreditCard, Download, Receipt } from "lucide-react";
import { Link } from "react-router";
import { StripeRedirectButton } from "../../components/billing/billing-forms.tsx";
import { PastDueBanner } from "../../components/billing/past-due-banner.tsx";
import { FormattedDate } from "../../components/dashboard/formatted-date.tsx";
import { EmptyState } from "../../components/empty-state.tsx";
import { PageHeader } from "../../components/page-header.tsx";
import { Alert } from "../../components/ui/alert.tsx";
import { Badge } from "../../components/ui/badge.tsx";
import { Button } from "../../components/ui/button.tsx";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "../../components/ui/card.tsx";
import { billingAccount, billingAction, billingPageData } from "../../lib/billing.server.ts";
import { SET_PLAN_COMMAND } from "../../lib/billing.ts";
import { formatCurrency } from "../../lib/format.ts";
import { pageMeta } from "../../lib/meta.ts";
import { requireOnboardedUser } from "../../lib/session.server.ts";
import type { Route } from "./+types/billing";

export const meta: Route.MetaFunction = ({ matches, location }) =>
  pageMeta({
    baseUrl: matches[0]?.loaderData?.baseUrl,
    path: location.pathname,
    title: "Billing",
    noindex: true,
  });

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireOnboardedUser(request, context, url);
  const account = await billingAccount(context, user.id, url);
  return { ...(await billingPageData(context, account.id)), org: account.org ?? null };
}

export async function action({ request, context, url }: Route.ActionArgs) {
  const user = await requireOnboardedUser(request, context, url);
  return billingAction(request, context, await billingAccount(context, user.id, url));
}

const INVOICE_STATUS: Record<
  string,
  { label: string; variant: "success" | "warning" | "secondary" | "destructive" }
> = {
  paid: { label: "Paid", variant: "success" },
  open: { label: "Due", variant: "warning" },
  draft: { label: "Draft", variant: "secondary" },
  void: { label: "Void", variant: "secondary" },
  uncollectible: { label: "Uncollectible", variant: "destructive" },
};

function brandName(brand: string) {
  const names: Record<string, string> = {
    amex: "American Express",
    diners: "Diners Club",
    discover: "Discover",
    jcb: "JCB",
    mastercard: "Mastercard",
    unionpay: "UnionPay",
    visa: "Visa",
  };
  return names[brand] ?? brand.charAt(0).toUpperCase() + brand.slice(1);
}

export default function Billing({ loaderData, actionData }: Route.ComponentProps) {
  const page = loaderData;
  const plan = plans[page.plan.plan];
  const details = page.details;
  return (
    <>
      <PageHeader
        title={page.org ? `Billing of ${page.org.name}` : "Billing"}
        description={
          page.org
            ? `What the plan of the organization ${page.org.slug} costs. It is paid on your card, and its invoices are yours.`
            : "Your card, your invoices and what your plan costs."
        }
        actions={
          details?.hasCustomer ? (
            <StripeRedirectButton intent="portal" variant="outline">
              <CreditCard aria-hidden="true" />
              Manage billing
            </StripeRedirectButton>
          ) : undefined
        }
      />
      {page.notice ? <PastDueBanner plan={page.notice.plan} /> : null}
      {actionData && !actionData.ok ? (
        <Alert variant="error" className="mb-6">
          {actionData.error}
        </Alert>
      ) : null}
      {page.detailsError ? (
        <Alert variant="error" className="mb-6">
          {page.detailsError}
        </Alert>
      ) : null}
      <div className="grid gap-4 md:grid-cols-2">
        <Card data-testid="billing-plan">
          <CardHeader>
            <CardDescription>Plan</CardDescription>
            <CardTitle className="text-xl">{plan.name}</CardTitle>
          </CardHeader>
          <CardContent className="grid gap-3 text-sm">
            <p className="text-muted-foreground">
              {page.plan.source === "subscription" ? (
                <>
                  {formatCurrency(page.plan.annual ? plan.annualPrice : plan.monthlyPrice)} per{" "}
                  {page.plan.annual ? "year" : "month"}
                  {page.plan.periodEnd ? (
                    <>
                      {page.plan.cancelAtPeriodEnd ? "; ends on " : "; next payment on "}
                      <FormattedDate iso={page.plan.periodEnd} />
                    </>
                  ) : null}
                  .
                </>
              ) : page.plan.source === "operator" ? (
                "Set by the operator of this server; nothing is charged for it."
              ) : (
                "Free. Nothing is charged."
              )}
            </p>
            <div>
              <Button asChild variant="outline" size="sm">
                <Link to={page.org ? `/subscription?org=${page.org.slug}` : "/subscription"}>
                  {page.plan.source === "default" ? "See the plans" : "Change plan"}
                </Link>
              </Button>
            </div>
          </CardContent>
        </Card>
        <Card data-testid="payment-method">
          <CardHeader>
            <CardDescription>Payment method</CardDescription>
            <CardTitle className="text-xl">
              {details?.paymentMethod
                ? `${brandName(details.paymentMethod.brand)} •••• ${details.paymentMethod.last4}`
                : "No card on file"}
            </CardTitle>
          </CardHeader>
          <CardContent className="text-sm text-muted-foreground">
            {details?.paymentMethod ? (
              <p>
                Expires {String(details.paymentMethod.expMonth).padStart(2, "0")}/
                {details.paymentMethod.expYear}. Change it in Manage billing.
              </p>
            ) : page.payments ? (
              <p>Your card is added when you subscribe to a paid plan, on Stripe's checkout page.</p>
            ) : (
              <p>This server takes no payments.</p>
            )}
          </CardContent>
        </Card>
      </div>
      <section className="mt-10" aria-labelledby="invoices-heading">
        <h2 id="invoices-heading" className="mb-4 text-lg font-semibold tracking-tight">
          Invoices
        </h2>
        {!page.payments ? (
          <EmptyState icon={Receipt} title="No payments on this server">
            Plans on this server are set by its operator, so there are no invoices. The operator uses{" "}
            <code className="break-words rounded bg-muted px-1 font-mono text-xs">{SET_PLAN_COMMAND}</code>
          </EmptyState>
        ) : !details?.invoices.length ? (
          <EmptyState icon={Receipt} title="No invoices yet">
            Invoices appear here once you subscribe to Starter or Pro, with a PDF of each one.
          </EmptyState>
        ) : (
          <Card className="overflow-x-auto">
            <table className="w-full text-sm" data-testid="invoices">
              <thead className="border-b border-border bg-muted/40 text-left text-xs uppercase tracking-wide text-muted-foreground">
                <tr>
                  <th scope="col" className="px-3 py-2 sm:px-4 font-medium">
                    Date
                  </th>
                  <th scope="col" className="hidden px-3 py-2 font-medium sm:table-cell sm:px-4">
                    Number
                  </th>
                  <th scope="col" className="px-3 py-2 sm:px-4 text-right font-medium">
                    Amount
                  </th>
                  <th scope="col" className="px-3 py-2 sm:px-4 font-medium">
                    Status
                  </th>
                  <th scope="col" className="px-3 py-2 sm:px-4 text-right font-medium">
                    <span className="sr-only">PDF</span>
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-border">
                {details.invoices.map((invoice) => {
                  const status = INVOICE_STATUS[invoice.status] ?? {
                    label: invoice.status,
                    variant: "secondary" as const,
                  };
                  return (
                    <tr key={invoice.id}>
                      <td className="px-3 py-3 sm:px-4 whitespace-nowrap">
                        <FormattedDate iso={invoice.date} />
                      </td>
                      <td className="hidden px-3 py-3 font-mono text-xs text-muted-foreground sm:table-cell sm:px-4">
                        {invoice.number ?? "—"}
                      </td>
                      <td className="px-3 py-3 sm:px-4 text-right font-medium tabular-nums">
                        {formatCurrency(invoice.amount, invoice.currency)}
                      </td>
                      <td className="px-3 py-3 sm:px-4">
                        <Badge variant={status.variant}>{status.label}</Badge>
                      </td>
                      <td className="px-3 py-3 sm:px-4 text-right">
                        {invoice.pdfUrl ? (
                          <a
                            href={invoice.pdfUrl}
                            className="inline-flex items-center gap-1 rounded-sm font-medium text-primary hover:underline"
                            rel="noreferrer"
                          >
                            <Download className="size-3.5" aria-hidden="true" />
                            <span className="sr-only sm:not-sr-only">PDF</span>
                            <span className="sr-only"> of invoice {invoice.number ?? invoice.id}</span>
                          </a>
                        ) : invoice.hostedUrl ? (
                          <a
                            href={invoice.hostedUrl}
                            className="font-medium text-primary hover:underline"
                            rel="noreferrer"
                          >
                            View
                          </a>
                        ) : null}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </Card>
        )}
      </section>
    </>
  );
}
