// A determinate progress bar with an accessible name and value.
import type { ComponentProps } from "react";
import { cn } from "../../lib/utils.ts";

export function Progress({
  value,
  label,
  className,
  indicatorClassName,
  ...props
}: Omit<ComponentProps<"div">, "children"> & {
  /** 0 to 100. */
  value: number;
  label: string;
  indicatorClassName?: string;
}) {
  const clamped = Math.max(0, Math.min(100, Math.round(value)));
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={clamped}
      className={cn("h-1.5 w-full overflow-hidden rounded-full bg-muted", className)}
      {...props}
    >
      <div
        className={cn(
          "h-full rounded-full bg-primary transition-[width] duration-200 ease-out",
          indicatorClassName,
        )}
        style={{ width: `${clamped}%` }}
      />
    </div>
  );
}
