// A choice between a few options, as native radio buttons styled as cards (a fieldset with a
// legend, so screen readers announce the group).
import type { LucideIcon } from "lucide-react";
import { useId } from "react";
import { cn } from "../../lib/utils.ts";

export interface RadioCardOption {
  value: string;
  label: string;
  description?: string;
  icon?: LucideIcon;
}

export function RadioCards({
  legend,
  name,
  options,
  defaultValue,
  error,
  className,
}: {
  legend: string;
  name: string;
  options: RadioCardOption[];
  defaultValue?: string;
  error?: string;
  className?: string;
}) {
  const id = useId();
  return (
    <fieldset
      className={cn("grid grid-cols-1 gap-2", className)}
      aria-describedby={error ? `${id}-error` : undefined}
    >
      <legend className="mb-2 text-sm font-medium leading-none">{legend}</legend>
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
        {options.map(({ value, label, description, icon: Icon }) => (
          <label
            key={value}
            className="flex cursor-pointer items-start gap-3 rounded-md border border-input p-3 transition-colors hover:bg-muted/60 has-checked:border-primary has-checked:bg-accent has-focus-visible:outline-2 has-focus-visible:outline-offset-1 has-focus-visible:outline-ring"
          >
            <input
              type="radio"
              name={name}
              value={value}
              defaultChecked={defaultValue === value}
              className="mt-0.5 size-4 accent-primary focus-visible:outline-none"
            />
            <span className="grid grid-cols-1 gap-0.5">
              <span className="flex items-center gap-1.5 text-sm font-medium">
                {Icon ? <Icon className="size-3.5 text-muted-foreground" aria-hidden="true" /> : null}
                {label}
              </span>
              {description ? <span className="text-xs text-muted-foreground">{description}</span> : null}
            </span>
          </label>
        ))}
      </div>
      {error ? (
        <p id={`${id}-error`} className="text-sm text-destructive">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
