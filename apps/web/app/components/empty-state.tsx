import type { LucideIcon } from "lucide-react";
import type { ReactNode } from "react";

export function EmptyState({
  icon: Icon,
  title,
  children,
  action,
  titleAs: Title = "h2",
}: {
  icon: LucideIcon;
  title: string;
  children: ReactNode;
  action?: ReactNode;
  /** h1 when the empty state is the whole page (/billing/success, /billing/cancel). */
  titleAs?: "h1" | "h2";
}) {
  return (
    <div className="flex flex-col items-center rounded-xl border border-dashed border-border px-6 py-14 text-center">
      <div className="rounded-full bg-accent p-3 text-primary">
        <Icon className="size-6" aria-hidden="true" />
      </div>
      <Title className="mt-4 text-lg font-semibold">{title}</Title>
      <div className="mt-2 max-w-md text-sm text-muted-foreground">{children}</div>
      {action ? <div className="mt-6">{action}</div> : null}
    </div>
  );
}
