// The three plans side by side, read from the contract's plans.ts.

import { type PlanId, planIds, plans } from "@packyard/contract/plans.ts";
import { Check } from "lucide-react";
import type { ReactNode } from "react";
import { formatCurrency, formatFileSize } from "../lib/format.ts";
import { cn } from "../lib/utils.ts";
import { Card } from "./ui/card.tsx";

export function PlanCards({
  current,
  annual,
  highlight,
  action,
}: {
  current?: PlanId;
  annual: boolean;
  highlight?: PlanId;
  /** A call to action at the bottom of each card. */
  action?: (plan: PlanId) => ReactNode;
}) {
  return (
    <div className="grid gap-4 md:grid-cols-3">
      {planIds.map((id) => {
        const plan = plans[id];
        const price = annual ? plan.annualPrice : plan.monthlyPrice;
        return (
          <Card
            key={id}
            className={cn("flex flex-col p-6", highlight === id && "border-primary ring-1 ring-primary")}
            data-plan={id}
          >
            <div className="flex items-center justify-between">
              <h2 className="text-lg font-semibold">{plan.name}</h2>
              {current === id ? (
                <span className="rounded-full bg-accent px-2 py-0.5 text-xs font-medium text-primary">
                  Current plan
                </span>
              ) : null}
            </div>
            <p className="mt-3">
              <span className="text-3xl font-bold">{price === 0 ? "Free" : formatCurrency(price)}</span>
              {price === 0 ? null : (
                <span className="text-muted-foreground"> / {annual ? "year" : "month"}</span>
              )}
            </p>
            <ul className="mt-5 grid gap-2 text-sm">
              {[
                ...plan.highlights,
                `${formatFileSize(plan.storageBytes)} storage`,
                `${formatFileSize(plan.downloadBytesPerMonth)} downloads / month`,
              ].map((line) => (
                <li key={line} className="flex gap-2">
                  <Check className="mt-0.5 size-4 shrink-0 text-success" aria-hidden="true" />
                  {line}
                </li>
              ))}
            </ul>
            {action ? <div className="mt-auto pt-6">{action(id)}</div> : null}
          </Card>
        );
      })}
    </div>
  );
}
